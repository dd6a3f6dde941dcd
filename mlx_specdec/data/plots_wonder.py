"""Imagination, fantasy and humour plots for the bundled story generator.

A sibling of :mod:`mlx_specdec.data.plots_nature` and
:mod:`mlx_specdec.data.plots_home`: make-believe stories in the TinyStories
register (toys that wake at night, a shy dragon, a robot who wants to laugh, a
spell that turns everything to jelly, a snowman who longs for summer, a ghost
who is scared of children, a noodle that never ends ...). Each plot draws its
cast once, sets ``s.ctx["A"]`` to the hero, and writes 6-14 sentences whose
every beat has several differently-worded alternatives and at least one
branch. Randomness comes only from ``s.rng`` (through ``s.pick`` and
``s.chance``), so a story is a pure function of its seed.

The module brings its own lexicon (creature names, royal and wizard words,
spells, sky and sea things, silly hats, toy friends, jokes) so that the corpus
it adds reaches well past the words of the older plots.
"""

from __future__ import annotations

from typing import Callable

from .stories import (
    _article,
    Story,
    Who,
    _phrases,
    _words,
    ending,
)

# ---------------------------------------------------------------------------
# Lexicon of the wonder plots
# ---------------------------------------------------------------------------

DRAGON_NAMES = _words("Ember Smoky Cinder Sizzle Flicker Scorch Puffin Blaze Crackle Toasty Sparkwing Glimmer")
ROBOT_NAMES = _words("Bolt Beep Gizmo Widget Sprocket Clank Rivet Zippo Gadget Tinkbot Boop Cog")
KING_NAMES = _words("Pip Wendel Tobias Fitz Humbert Barnaby Cosmo Percival Rupert Alfie")
PRINCESS_NAMES = _words("Marigold Rosalind Ottilie Clementine Winnie Primrose Elodie Beatrix Imogen Tilda")
WIZARD_NAMES = _words("Fizzwick Merribel Bramble Zephyr Quill Tumblewick Pimm Nimbus Oddbody Wanda")
CLOUD_NAMES = _words("Puff Wisp Fluff Nimbo Billow Drift Misty Cotton Pillow Fuzzle")
STAR_NAMES = _words("Twinkle Glint Spark Lumi Shimmer Dazzle Gleam Nova Blink Tinsel")
TREE_NAMES = _words("Old_Barkley Grandmother_Oak Mister_Willow Old_Rootbeard Auntie_Elm Old_Gnarl")
SNOWMAN_NAMES = _words("Frosty Chilly Flurry Sleet Snowball Crispin Icicle Blizzard Slushy Nippy")
PIRATE_NAMES = _words("Captain_Crumb Captain_Barnacle Captain_Kelp Captain_Gumboot Captain_Rosie Captain_Moll")
GIANT_NAMES = _words("Gus Bertha Hulda Olaf Tilly Boris Magnus Greta Ned Ingrid")
MERMAID_NAMES = _words("Coral Marina Pearl Nerissa Delphine Shelly Ondine Kelpie")
GHOST_NAMES = _words("Boo Wispy Flutter Moany Pale_Pete Shivers Ghosty Hush")
UNICORN_NAMES = _words("Stardust Moonbeam Petal Sugarplum Rainbow Sparkle Glitterhoof Willowmane")
MOUSE_NAMES = _words("Pip Nibbles Crumb Whisker Squeak Tiddle Morsel Peppercorn Tuck Minnow")
TEAPOT_NAMES = _words("Polly Dumpling Rosie Bertie Clementine Tippy Humphrey Lulu")
DINO_NAMES = _words("Rexy Stompy Chomper Trixie Spike Dottie Bronto Tricia Rumbles Longneck")
CAT_NAMES = _words("Mittens Marmalade Pudding Socks Tinkerbell Ziggy Dumpling Whisker Biscuit Smudge")

MAGIC_ADJ = _words("glittering shimmering glowing twinkly enchanted mysterious silvery dazzling wobbly peculiar")
FUNNY_ADJ = _words("silly ridiculous wobbly topsy-turvy giggly goofy bonkers zany loopy wacky")

TOY_FRIENDS = [
    # (toy, what it did when it woke)
    ("teddy bear", "stretched {T.his} fuzzy arms and yawned"),
    ("tin soldier", "clicked {T.his} heels and saluted"),
    ("rag doll", "shook out {T.his} yarn hair"),
    ("wooden horse", "tossed {T.his} painted mane"),
    ("toy robot", "whirred and blinked {T.his} little lights"),
    ("jack-in-the-box", "popped up with a boing"),
    ("stuffed giraffe", "stretched {T.his} long floppy neck"),
    ("plastic dinosaur", "gave a tiny squeaky roar"),
    ("ballerina doll", "twirled on one tiptoe"),
    ("knitted octopus", "waved all eight woolly arms"),
]
TOY_GAMES = _phrases(
    "a race across the carpet | a dance on the bookshelf | a tea party with thimbles | "
    "a parade around the rug | a game of tag under the bed | a slide down the pillow mountain | "
    "a marble bowling game | a puppet show behind the curtain"
)
BROKEN_ROYAL = [
    # (what was broken, the symptom, the fix)
    ("drawbridge", "it creaked and groaned and would not come down",
     "oiled the rusty chains and tightened two big bolts"),
    ("castle clock", "its hands had stopped at half past three",
     "wound the springs and polished the tiny gears"),
    ("royal carriage", "one wheel wobbled and squeaked",
     "hammered the wheel straight and added a fresh peg"),
    ("fountain in the courtyard", "it only burped out a sad little dribble",
     "pulled a soggy old boot out of the pipe"),
    ("music box in the ballroom", "it played every song backwards",
     "turned one tiny cog the right way round"),
    ("tower elevator", "it got stuck between floors and buzzed",
     "reconnected a loose wire and gave it a friendly tap"),
]
TOOLS = _phrases("wrench | screwdriver | little hammer | pair of pliers | oil can | tape measure | spanner")
JELLY_COLORS = _words("green red orange purple yellow pink blue")
JELLY_THINGS = _phrases(
    "the chairs | the table | the broomstick | the bookshelf | the front door | "
    "the spoons | the cat's basket | the wizard's hat | the staircase | the cauldron"
)
SPELL_WORDS = _phrases(
    "Abra-ka-jelly | Wibble-wobble-zoom | Hocus-pocus-jiggle | Flibber-flobber-splat | "
    "Zim-zam-wobble | Fizzle-fozzle-goo"
)
DRY_PLACES = _phrases(
    "a thirsty vegetable garden | a field of drooping sunflowers | a dusty little farm | "
    "a park where the grass had turned brown | an orchard of sleepy apple trees"
)
STAR_RESCUES = [
    # (how the star went home, the closing image)
    ("{A.name} tied the star to {A.his} kite and let the wind carry it up, up, up",
     "the kite string tugged once, as if someone said thank you"),
    ("a big gray owl offered to carry the star home on her back",
     "the owl flew so high that she became a dot against the moon"),
    ("{A.name} put the star on the biggest swing and pushed as hard as {A.he} could",
     "the star flew off the swing and zoomed straight into the sky"),
    ("a kind balloon seller gave {A.name} a red balloon, and the star held on tight",
     "the red balloon floated higher and higher until it popped into starlight"),
]
TREE_WISHES = [
    # (what the tree asked, what the hero did)
    ("My branches are so itchy. Could you scratch my bark?",
     "climbed up and scratched the bark with a pinecone until the tree sighed happily"),
    ("I'm so lonely here. Would you tell me a story?",
     "sat down on a root and told the tree every story {A.he} knew"),
    ("A woodpecker keeps knocking on my head. Could you ask him to stop?",
     "found the woodpecker and asked him to knock on the old fence post instead"),
    ("I've always wanted to see the sea. Would you tell me what it looks like?",
     "described the waves, the shells and the salty wind until the leaves shivered with joy"),
]
SOCK_KINDS = _phrases(
    "striped sock | spotty sock | woolly sock | rainbow sock | fuzzy sock | "
    "sock with a hole in the toe | sparkly party sock | sock with little rockets on it"
)
SUMMER_THINGS = _phrases(
    "ice cream cones | sandcastles | butterflies | sunflowers | beach balls | "
    "lemonade | paddling pools | buzzing bees"
)
PIRATE_CREW = _phrases("a parrot named Squawk | a first mate named Salty Sam | a cabin cat named Anchor | "
                       "a monkey named Bosun | a deckhand named Little Lou")
GIANT_OOPS = [
    # (the accident, the noise)
    ("stepped on a squeaky rubber duck", "SQUEEEAK"),
    ("bumped the church bell with {A.his} elbow", "DONG"),
    ("sneezed a giant sneeze", "AH-CHOO"),
    ("knocked over a stack of milk cans", "CLANG-CLATTER-BANG"),
]
PAINTED_THINGS = [
    # (what was painted, what it did)
    ("a butterfly", "fluttered off the page and landed on {A.his} nose"),
    ("a red apple", "rolled off the paper, and {A.he} took a crunchy bite"),
    ("a little fish", "flipped off the page and splashed into the sink"),
    ("a puppy", "jumped out of the paper and licked {A.his} cheek"),
    ("a bunch of balloons", "floated off the page and bobbed against the ceiling"),
    ("a bird", "hopped off the paper and sang from the lampshade"),
]
TOO_BIG = _phrases("an elephant | a hippo | a whale | a giant bouncy castle | a hot air balloon")
DOOR_FOLK = [
    # (who opened the door, what was inside)
    ("a beetle in a waistcoat", "a tiny kitchen with acorn cups"),
    ("a mouse in a nightcap", "a cozy room with a bed made from a matchbox"),
    ("a snail wearing spectacles", "a library of books no bigger than postage stamps"),
    ("a ladybug with a feather duster", "a ballroom lit by glowworms"),
    ("an old toad with a pocket watch", "a twisty staircase that went down into the roots"),
]
ROCKET_PARTS = _phrases(
    "a big cardboard box | a paper plate for a steering wheel | two empty bottles for jet packs | "
    "a colander for a space helmet | foil for shiny wings | a flashlight for the headlight"
)
MOON_FINDS = [
    ("a moon rabbit", "made of moon dust", "hopped in slow, floaty bounces"),
    ("a little green alien", "with three wiggly antennae", "waved with all three hands"),
    ("a moon cow", "with silver spots", "mooed in a very quiet space voice"),
    ("a moon mouse", "nibbling a rock of cheese", "squeaked hello in a tiny, echoing voice"),
]
BEACH_HIDING = _phrases(
    "under a heap of seaweed | in a rock pool | beside a sleeping crab | "
    "inside a sandcastle | tangled in an old fishing net | half-buried in the sand"
)
COLD_SYMPTOMS = _phrases(
    "a runny nose | a scratchy throat | a droopy horn | sniffles | watery eyes"
)
SNEEZE_RESULTS = _phrases(
    "a shower of glitter | a tiny rainbow | a puff of pink bubbles | a cloud of sparkles | "
    "a swirl of butterflies"
)
COLD_CURES = _phrases(
    "a bowl of warm carrot soup | a mug of honey and lemon | a cozy knitted scarf | "
    "a pile of soft hay and a lullaby | hot cocoa with three marshmallows"
)
HAT_BITS = _phrases(
    "a rubber chicken | three paper flowers | a tower of plastic cups | a pair of googly eyes | "
    "a feather duster | two spoons that jingled | a banana | a tiny umbrella | "
    "a paper windmill | a toy boat | a spring with a pom-pom | an old cereal box"
)
HAT_PRIZES = _phrases(
    "Silliest Hat | Tallest Hat | Wobbliest Hat | Most Surprising Hat | Noisiest Hat"
)
DOG_HABITS = _phrases(
    "fetched sticks | barked at the mailman | wagged {A.his} tail | chased the postman's bicycle | "
    "buried bones in the garden | rolled over for treats | howled at the moon"
)
NOODLE_PLACES = _phrases(
    "out of the kitchen | down the hallway | across the garden | past the bakery | "
    "around the fountain in the square | under the bridge | through the school gates"
)
FUNNY_WISHES = [
    # (the wish, what happened, how it was fixed)
    ("\"I wish I had lots of bunnies!\"",
     "a hundred bunnies hopped into the kitchen, nibbling the carpet and the curtains",
     "wished for a big garden for the bunnies to live in"),
    ("\"I wish I could fly like a bird!\"",
     "{A.he} grew feathers and could only say \"tweet\" and \"cheep\"",
     "wished to fly in an airplane instead"),
    ("\"I wish it would rain candy!\"",
     "gumdrops bounced off the roof and lollipops stuck in everyone's hair",
     "wished for just one little bag of candy"),
    ("\"I wish I were taller!\"",
     "{A.he} grew so tall that {A.his} head poked through the clouds",
     "wished to be just one inch taller"),
    ("\"I wish my dog could talk!\"",
     "the dog talked and talked and never stopped asking for sausages",
     "wished the dog could talk only on Sundays"),
]
BOOK_TOPICS = _phrases(
    "volcanoes | how to make friends | baking cakes | the stars | knitting | "
    "fossils | very tiny bugs | dancing"
)
SHADOW_SPOTS = _phrases(
    "over the garden wall | up the lamp post | across the duck pond | along the fence | "
    "into the shade of a big tree | onto the roof of the bakery"
)
TEA_SONGS = _phrases(
    "a bubbly waltz | an old sea shanty | a lullaby about the moon | a jolly marching song | "
    "a whistling tune about biscuits"
)
KITE_SIGHTS = _phrases(
    "the roof of {A.his} own house | tiny cars like beetles | cows like dots in a green field | "
    "the school with its red doors | a river that shone like a ribbon | a flock of surprised geese"
)
BIG_ANIMALS = [
    # (the big animal, its trouble, how the small hero helped)
    ("lion", "had a thorn stuck between two of his toes", "pulled out the thorn with {A.his} tiny paws"),
    ("elephant", "had dropped his key down a narrow crack", "squeezed into the crack and brought the key back"),
    ("bear", "had a bee buzzing inside his ear", "whispered to the bee until it flew out"),
    ("giraffe", "had a knot tangled in her scarf", "nibbled the knot loose with {A.his} sharp teeth"),
]
BIG_TRICKS = _phrases(
    "walking on tiptoe | standing on a cotton reel | wearing a tall hat | "
    "puffing out {A.his} chest | eating a whole strawberry | walking on two pencil stilts"
)

WONDER_GOOD = _words("delighted giddy thrilled overjoyed amazed proud tickled cheerful glowing bubbly")
WONDER_BAD = _words("gloomy glum nervous sheepish embarrassed puzzled jittery forlorn fretful droopy")

WONDER_ENDINGS = _phrases(
    "And that is how the most magical day ended. | "
    "{A.Name} still smiles whenever {A.he} think{A.s} of it. | "
    "It was a funny, wonderful day. | "
    "Nobody who was there ever forgot it. | "
    "And that was the most wonderful day of all. | "
    "The end, or maybe just the beginning."
)
# Names that only suit one pronoun; any other creature name takes he or she.
SHE_NAMES = set(_words(
    "Bertha Hulda Tilly Greta Ingrid Merribel Wanda Polly Rosie Clementine Lulu Tippy "
    "Dottie Trixie Tricia Marina Pearl Coral Nerissa Delphine Shelly Ondine Kelpie"
)) | {"Grandmother Oak", "Auntie Elm", "Captain Rosie", "Captain Moll"}
HE_NAMES = set(_words("Gus Olaf Boris Magnus Ned Bertie Humphrey Rufus Duke Buster Norbert")) | {
    "Mister Willow", "Old Rootbeard", "Pale Pete"}


def _being(s: Story, kind: str, names: list[str], pron: str | None = None, adj: str = "") -> Who:
    """A named make-believe creature; names may use '_' for a space."""
    name = s._fresh(names).replace("_", " ")
    if pron is None:
        pron = "she" if name in SHE_NAMES else "he" if name in HE_NAMES else s.pick(["he", "she"])
    w = Who(name, pron, kind, adj)
    return w


def _friend(s: Story) -> Who:
    return s.kid()


def _feel(s: Story, W: Who, good: bool) -> None:
    f = s.pick(WONDER_GOOD if good else WONDER_BAD)
    s.add("{W.Name} felt {f}.", "{W.Name} {W.was} simply {f}.", "{W.Name} {W.was} so {f}.", W=W, f=f)


def _close(s: Story, A: Who, own: list[str], moral: str | None = None, p_own: float = 0.65, **kw) -> None:
    """The plot's own last line most of the time, else a moral or a wonder ending."""
    if s.chance(p_own):
        s.add(*own, **kw)
    elif moral and s.chance(0.5):
        ending(s, A, moral, 1.0)
    else:
        s.add(*WONDER_ENDINGS)


def _is_kid(W: Who) -> bool:
    return W.kind in ("girl", "boy", "kid")


# ---------------------------------------------------------------------------
# Plots
# ---------------------------------------------------------------------------


def plot_toys_wake_at_night(s: Story) -> None:
    A = s.kid()
    toy, woke = s.pick(TOY_FRIENDS)
    T = Who(s.pick(["Bartholomew", "Buttons", "Sir Fluff", "Patches", "Noodle", "Jingles", "Dot"]),
            s.pick(["he", "she"]), toy)
    s.ctx.update(A=A, T=T, woke=s.fill(woke, T=T), game=s.pick(TOY_GAMES))
    s.add(
        "{A.Name} had a {T.kind} called {T.name} who sat on the shelf above {A.his} bed.",
        "Every night, {A.name} said good night to {A.his} {T.kind}, {T.name}.",
        "There was once {A.a} named {A.name} who owned a very old {T.kind} named {T.name}.",
    )
    s.add(
        "One night, the clock struck twelve, and {A.name} was still awake.",
        "At midnight, {A.name} heard a soft thump in the dark.",
        "Long after bedtime, something rustled on the shelf.",
    )
    s.add(
        "{A.He} opened one eye and saw that {T.name} {woke}.",
        "Slowly, {T.name} {woke}.",
        "To {A.his} surprise, {T.name} {woke} and climbed down the bookshelf.",
    )
    s.add(
        "\"Wake up, everyone, it's playtime!\" {T.name} whispered.",
        "\"Quick, the house is asleep!\" {T.name} called softly to the other toys.",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} kept very still and watched through {A.his} eyelashes.",
            "{A.Name} pretended to be asleep, but {A.he} peeked.",
        )
        s.add(
            "The toys had {game}, and nobody noticed {A.name} smiling.",
            "All the toys joined in {game}, giggling as quietly as they could.",
        )
        s.add(
            "When the sky turned pink, they hurried back to their places.",
            "Just before morning, every toy scrambled back where it belonged.",
        )
        s.add(
            "But {T.name} was sitting upside down, and {A.name} knew exactly why.",
            "In the morning, {T.name} had a tiny smudge of dust on {T.his} nose.",
        )
    else:
        s.add(
            "\"Can I play too?\" {A.name} asked.",
            "{A.Name} sat up. \"Can I join in?\" {A.he} whispered.",
        )
        s.add(
            "The toys froze, and then {T.name} giggled, \"Only if you don't tell the grown-ups!\"",
            "\"A human who can keep a secret?\" {T.name} asked after a moment.",
        )
        s.add(
            "So {A.name} shrank down to toy size and joined {game}.",
            "{A.Name} crawled onto the rug, and they had {game} until the stars faded.",
        )
        s.add(
            "\"That was the best night ever,\" {A.name} yawned.",
            "\"Same time tomorrow?\" {T.name} asked with a wink.",
        )
    _close(s, A, [
        "From then on, {A.name} always said good night to every single toy.",
        "{A.Name} never told anyone, but {A.he} always left the shelf a little tidier for them.",
        "And every night after that, {A.name} listened for the tiny thump at midnight.",
    ])


def plot_shy_dragon(s: Story) -> None:
    A = _being(s, "dragon", DRAGON_NAMES, adj=s.pick(["shy", "little", "quiet", "timid"]))
    B = _friend(s)
    color = s.pick(["green", "purple", "orange", "blue", "golden"])
    s.ctx.update(A=A, B=B, acolor=f"{_article(color)} {color}")
    s.add(
        "High on a misty mountain lived {A.a} named {A.name}.",
        "In a cave behind a waterfall, there lived {A.a} called {A.name}.",
        "{A.Name} was {acolor} dragon, and {A.he} was the shyest dragon in the whole kingdom.",
    )
    s.add(
        "Whenever anyone came near, {A.name} hid behind a rock and blushed bright pink.",
        "{A.He} was so shy that {A.his} cheeks glowed every time someone said hello.",
        "Other dragons roared and showed off, but {A.name} only hummed quietly to {A.himself}.",
    )
    s.add(
        "One day, a {B.kind} named {B.name} climbed up to the cave with a basket.",
        "One snowy afternoon, {B.name} got lost and wandered into the cave.",
    )
    s.add(
        "\"H-hello,\" {A.name} squeaked, and a tiny puff of smoke came out.",
        "\"Please don't be scared,\" {B.name} said. \"I'm only looking for a friend.\"",
        "\"Are you a real dragon?\" {B.name} asked. {A.Name} nodded and hid {A.his} face.",
    )
    if s.chance(0.5):
        s.add(
            "{B.Name} was shivering, so {A.name} took a deep breath.",
            "{B.Name}'s fingers were blue with cold.",
        )
        s.add(
            "Very gently, {A.he} breathed a warm little flame and lit a cozy fire.",
            "{A.He} puffed the softest, warmest flame {A.he} could, and the cave glowed.",
        )
        s.add(
            "\"You're not scary at all,\" {B.name} laughed. \"You're the best heater ever!\"",
            "\"Thank you,\" {B.name} said, warming {B.his} hands. \"You're very kind.\"",
        )
    else:
        s.add(
            "{B.Name} told {A.name} that the village lanterns would not light for the festival.",
            "\"Our festival is tonight, but the rain put out every lantern,\" {B.name} sighed.",
        )
        s.add(
            "{A.Name} was nervous, but {A.he} flew down to the village after dark.",
            "That night, {A.name} followed {B.name} down the mountain, trembling all the way.",
        )
        s.add(
            "One by one, {A.he} lit every lantern with a tiny, careful flame, and the people cheered.",
            "With a shy smile, {A.he} lit each lantern, and the whole square glowed gold.",
        )
    _feel(s, A, True)
    _close(s, A, [
        "{A.Name} was still shy, but now {A.he} had a friend who didn't mind one bit.",
        "After that, {B.name} visited the cave every week, and {A.name} never hid again.",
        "\"Maybe being shy is okay,\" {A.name} said, and {A.his} cheeks glowed happily.",
    ], "Being quiet does not mean you cannot be brave.")


def plot_robot_learns_laugh(s: Story) -> None:
    A = _being(s, "robot", ROBOT_NAMES, pron=s.pick(["he", "she", "it"]),
               adj=s.pick(["shiny", "little", "clever", "squeaky"]))
    B = _friend(s)
    joke_q, joke_a = s.pick([
        ("Why did the robot go on holiday?", "To recharge its batteries!"),
        ("What do you call a bear with no ears?", "A B!"),
        ("Why did the cow cross the road?", "To get to the udder side!"),
        ("What do you call a fish with no eyes?", "A fsh!"),
    ])
    s.ctx.update(A=A, B=B, q=joke_q, a=joke_a)
    s.add(
        "In a workshop full of bolts and wires lived {A.a} named {A.name}.",
        "{A.Name} was {A.a} who could count to a million and sort socks in a second.",
        "There was once {A.a} called {A.name}, with blinking blue lights for eyes.",
    )
    s.add(
        "But there was one thing {A.name} could not do: {A.he} could not laugh.",
        "{A.Name} could do almost anything, except laugh.",
    )
    s.add(
        "\"What is a giggle, and does it need batteries?\" {A.he} asked.",
        "\"Laughing does not compute,\" {A.name} beeped sadly.",
    )
    s.add(
        "\"Don't worry, I'll teach you,\" said {A.his} friend {B.name}. \"{q} {a}\"",
        "{A.His} friend {B.name} wanted to help, so {B.he} told {B.his} best joke: \"{q} {a}\"",
    )
    s.add(
        "{A.Name} just blinked and said, \"That is not a correct answer.\"",
        "\"Error, joke not found,\" {A.name} whirred.",
    )
    if s.chance(0.5):
        s.add(
            "So {B.name} tried tickling {A.him} under {A.his} metal arms.",
            "Next, {B.name} found a feather and tickled {A.name}'s knees.",
        )
        s.add(
            "Something inside {A.name} went bzzt, and then, \"Ha-ha-beep, ha-ha-HA!\"",
            "A tiny spring went boing, and {A.name} burst out laughing.",
        )
    else:
        s.add(
            "Just then {B.name} stepped on a banana peel and slid across the floor with a squeal.",
            "Then {B.name} tripped over a toolbox and landed in a bucket of bolts, wearing it like a hat.",
        )
        s.add(
            "{A.Name}'s lights flashed. \"Ha... ha-ha... HA-HA-HA!\" {A.he} laughed until {A.his} gears rattled.",
            "\"Beep-ha! Beep-ha-ha!\" {A.name} laughed, shaking all over.",
        )
    s.add(
        "\"So that's what laughing feels like!\" {A.name} giggled.",
        "\"My tummy feels fizzy, and I like it!\" {A.name} said.",
    )
    _close(s, A, [
        "After that, {A.name} laughed at every joke, even the very bad ones.",
        "Now {A.name} keeps a list of jokes, and {A.he} laughs at number one every morning.",
        "And {B.name} laughed too, because a laughing robot is the funniest thing of all.",
    ], "Laughter is best when it is shared with a friend.")


def plot_tiny_king(s: Story) -> None:
    A = _being(s, "king", KING_NAMES, pron="he", adj="tiny")
    A.called = f"King {A.name}"
    s.ctx.update(A=A, K=f"King {A.name}", helper=s.pick(["the royal cook", "a wise old mouse", "the queen",
                                                          "the palace gardener", "a little page boy"]))
    s.add(
        "In a kingdom far away lived a tiny king named {A.name}.",
        "{K} was the smallest king who ever ruled a kingdom.",
        "Once upon a time, there was a very small king called {K}, with a very big crown.",
    )
    s.add(
        "His crown was so big that it slipped down over his eyes.",
        "The golden crown was enormous, and it wobbled on his head like a bucket.",
    )
    s.add(
        "He bumped into pillars, walked into the moat, and once sat on the royal cat.",
        "He tripped over rugs and said good morning to a suit of armor, thinking it was the queen.",
        "\"Who turned out the lights?\" he cried, every time the crown slid down.",
    )
    s.add(
        "The people tried not to giggle, but it was very hard.",
        "The guards hid their smiles behind their shields.",
    )
    s.add(
        "\"A king must wear a big crown,\" he said stubbornly. \"Everyone knows that.\"",
        "\"I'm king, so my crown has to be the biggest,\" {A.name} grumbled.",
    )
    if s.chance(0.5):
        s.add(
            "One day, {helper} said, \"A king is big because of his kind heart, not his crown.\"",
            "Then {helper} spoke up: \"Your people love you because you're fair, not because your hat is huge.\"",
        )
        s.add(
            "So {K} tried a little crown made of daisies.",
            "So the king put on a small crown that fit him just right.",
        )
        s.add(
            "He could see everything! He waved to every child in the kingdom.",
            "Now he could see where he was going, and he didn't sit on the cat once.",
        )
    else:
        s.add("Then {helper} had an idea.", "One day, {helper} spoke up with a clever plan.")
        s.add(
            "They turned the big crown upside down and filled it with water.",
            "They put the giant crown in the garden and planted flowers in it.",
        )
        s.add(
            "It became the fanciest birdbath in the land, and the birds sang for the king every morning.",
            "It became the grandest flower pot anyone had ever seen.",
        )
        s.add(
            "\"Much better,\" said {K}, wearing a tiny paper crown instead.",
            "The king wore a small silver band, and nobody ever bumped into a pillar again.",
        )
    _close(s, A, [
        "And {K} ruled happily, and very carefully, for many years.",
        "From then on, people called him the tiny king with the big heart.",
        "The royal cat was especially pleased.",
    ], "It is not the size of your crown that makes you great.")


def plot_fixing_princess(s: Story) -> None:
    A = _being(s, "princess", PRINCESS_NAMES, pron="she")
    thing, symptom, fix = s.pick(BROKEN_ROYAL)
    s.ctx.update(A=A, thing=thing, symptom=symptom, fix=fix, tool=s.pick(TOOLS),
                 P=f"Princess {A.name}")
    s.add(
        "{P} did not like ball gowns or tea parties. She liked toolboxes.",
        "Most princesses had jewels, but {P} had a {tool} in her pocket.",
        "In a tall castle lived {P}, who could fix almost anything.",
    )
    s.add(
        "One morning, the {thing} was broken: {symptom}.",
        "One day, there was trouble with the {thing}. Everyone said {symptom}.",
    )
    s.add(
        "The knights poked it with their swords, and the wizard waved his wand, but nothing worked.",
        "The king scratched his head, and the knights just stood there clanking.",
        "Three knights tried to fix it, and one of them got stuck inside his own helmet.",
    )
    s.add(
        "\"Let me try,\" said {P}, rolling up her sleeves.",
        "\"Stand back, please,\" {A.name} said. \"I know what to do.\"",
    )
    if s.chance(0.4):
        s.add(
            "\"A princess can't fix things!\" laughed a grumpy duke.",
            "\"Princesses don't use tools,\" sniffed a lord with a long mustache, but she only smiled.",
        )
    s.add(
        "She {fix}.",
        "With her trusty {tool}, she {fix}.",
    )
    s.add(
        "With a clunk and a whirr, the {thing} worked better than ever.",
        "With a happy click, the {thing} was good as new.",
    )
    s.add(
        "\"Hooray for {P}!\" shouted everyone in the castle.",
        "The king clapped so hard that his crown fell off.",
    )
    _close(s, A, [
        "After that, the castle had a new sign on the door: Princess Repairs, Open Every Day.",
        "The grumpy duke even asked her to fix his squeaky rocking chair.",
        "{A.Name} hummed as she polished her {tool}. It was a very good day for fixing things.",
    ], "Anyone can be good at anything if they try.")


def plot_jelly_spell(s: Story) -> None:
    A = _being(s, "wizard", WIZARD_NAMES)
    spell = s.pick(SPELL_WORDS)
    s.ctx.update(A=A, spell=spell, col=s.pick(JELLY_COLORS), t1=s.pick(JELLY_THINGS[:5]),
                 t2=s.pick(JELLY_THINGS[5:]), cat=s.pick(["Mog", "Whiskerton", "Pudding", "Sage"]))
    s.add(
        "{A.Name} was a young wizard who was still learning {A.his} spells.",
        "In a crooked tower lived a little wizard named {A.name} and a cat called {cat}.",
        "Young {A.name} had a pointy hat, a wand and a big book of spells.",
    )
    s.add(
        "One morning, {A.he} wanted to make {A.his} breakfast fly to the table.",
        "One day, {A.he} tried a spell to tidy up the tower.",
    )
    s.add(
        "{A.He} waved {A.his} wand and shouted, \"{spell}!\"",
        "\"{spell}!\" {A.name} cried, but {A.he} said it a tiny bit wrong.",
    )
    s.add(
        "There was a wet, wobbly POP.",
        "Splot! A cloud of {col} smoke filled the room.",
    )
    s.add(
        "Suddenly {t1} turned to {col} jelly, and so did {t2}!",
        "When the smoke cleared, everything was made of {col} jelly: {t1}, {t2}, even the floor.",
    )
    s.add(
        "\"Oh, wobbly whiskers!\" {A.name} gasped as the floor went boing under {A.his} feet.",
        "{cat} the cat bounced past, looking very cross.",
        "The whole tower wibbled and wobbled like a giant pudding.",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} read the spell book very carefully this time.",
            "{A.Name} took a deep breath and found the right page.",
        )
        s.add(
            "\"Ellej-on-ruter!\" {A.he} said, which was the spell backwards.",
            "{A.He} said the spell backwards, slowly and clearly.",
        )
        s.add(
            "With a slurp, everything turned back to normal, except for one {col} spoon.",
            "Everything popped back to wood and stone, but the tower smelled of strawberries for a week.",
        )
    else:
        s.add(
            "{A.Name} started to giggle. \"Well, we might as well have a snack.\"",
            "\"Jelly for everyone!\" {A.name} laughed, and {A.he} fetched a big spoon.",
        )
        s.add(
            "The neighbors came with spoons, and they ate the wobbly staircase for pudding.",
            "{A.He} invited the whole village, and they bounced and nibbled all afternoon.",
        )
        s.add(
            "Then {A.his} teacher arrived and fixed everything with one flick of her wand.",
            "At sunset, the old head wizard came and, with a sigh, turned the tower back to stone.",
        )
    _close(s, A, [
        "After that, {A.name} always practiced {A.his} spells on a single grape first.",
        "{cat} the cat never slept on a jelly chair again.",
        "\"Next time I'll say it slowly,\" {A.name} promised, licking {A.his} fingers.",
    ], "Even wizards learn best from their mistakes.")


def plot_rain_cloud(s: Story) -> None:
    A = _being(s, "cloud", CLOUD_NAMES, pron=s.pick(["he", "she", "it"]), adj=s.pick(["small", "fluffy", "little", "white"]))
    s.ctx.update(A=A, dry=s.pick(DRY_PLACES))
    s.add(
        "High in the sky floated {A.a} named {A.name}.",
        "{A.Name} was {A.a} who drifted over the hills every day.",
        "Up above the town, where the birds fly, lived {A.a} called {A.name}.",
    )
    s.add(
        "Children pointed at {A.him} and said, \"Look, a bunny!\" or \"Look, a sheep!\"",
        "{A.Name} was soft and pretty, and {A.he} could make shapes like ducks and teacups.",
    )
    s.add(
        "But {A.name} wanted to be a big gray rain cloud.",
        "Secretly, {A.name} wished {A.he} could make rain, like the grown-up clouds.",
    )
    s.add(
        "\"You're too small to rain,\" the thundercloud rumbled.",
        "\"Little clouds can't rain,\" laughed the breeze.",
    )
    s.add(
        "Then {A.name} floated over {dry}.",
        "One hot day, {A.name} sailed above {dry}.",
    )
    s.add(
        "\"Please, rain,\" a farmer said, looking up. \"We're so thirsty.\"",
        "Everything below was dry and tired, and a little girl sighed, \"I wish it would rain.\"",
    )
    if s.chance(0.5):
        s.add(
            "So {A.name} flew to the sea and drank and drank until {A.he} {A.was} heavy and gray.",
            "{A.Name} zoomed to the lake, sipped up as much water as {A.he} could, and puffed up fat and dark.",
        )
    else:
        s.add(
            "{A.Name} asked all the other little clouds to help, and they huddled close together.",
            "{A.Name} called {A.his} cloud friends, and they joined hands to make one big gray cloud.",
        )
    s.add(
        "Pitter, patter, plop! Cool rain fell on the dry ground.",
        "Drip, drop, splash! The rain came down, soft and steady.",
    )
    s.add(
        "The plants stood up straight and the children danced in the puddles.",
        "The flowers lifted their heads, and the farmer threw his hat in the air.",
    )
    _feel(s, A, True)
    _close(s, A, [
        "Afterwards, {A.name} was small and white again, and a rainbow smiled underneath {A.him}.",
        "And from then on, whenever the land was thirsty, {A.name} was the first cloud to help.",
        "\"Even small clouds can do big things,\" {A.name} whispered to the wind.",
    ], "You do not have to be big to be helpful.")


def plot_star_in_pond(s: Story) -> None:
    A = s.kid()
    X = _being(s, "star", STAR_NAMES, pron=s.pick(["he", "she"]))
    how, last = s.pick(STAR_RESCUES)
    s.ctx.update(A=A, X=X, how=s.fill(how, A=A), last=last)
    s.add(
        "On a clear summer night, {A.name} was looking out of the window.",
        "{A.Name} couldn't sleep, so {A.he} sat by the window counting stars.",
        "It was late, and the sky was full of stars above {A.name}'s house.",
    )
    s.add(
        "Suddenly one star wobbled and fell, plop, right into the pond.",
        "Whoosh! A little star tumbled out of the sky and landed in the duck pond with a splash.",
    )
    s.add(
        "{A.Name} tiptoed outside in {A.his} pajamas.",
        "{A.Name} grabbed a fishing net and crept into the garden.",
    )
    s.add(
        "Something glowed under the lily pads, and {A.he} scooped it out, dripping and blinking.",
        "In the water, a tiny light was shining. {A.Name} fished it out very gently.",
    )
    s.add(
        "\"Thank you,\" said the star in a tinkly voice. \"My name is {X.name}, and I slipped.\"",
        "\"I'm {X.name},\" the star sniffled. \"I was dancing too close to the edge of the sky.\"",
    )
    s.add(
        "\"I want to go home,\" {X.name} said. \"My family will miss my twinkle.\"",
        "{X.Name}'s light grew dim. \"Stars can't stay on the ground for long,\" {X.he} whispered.",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} thought very hard.",
            "\"Don't worry, I'll get you home,\" {A.name} promised.",
        )
        s.add("In the end, {how}.")
    else:
        s.add(
            "{A.Name} tried throwing the star up, but it fell back down, giggling.",
            "First, {A.name} climbed on a chair and reached up, but the sky was much too high.",
        )
        s.add("Then {A.he} had a better idea, and {how}.")
    s.add(
        "Up and up went {X.name}, until {last}.",
        "{X.Name} twinkled goodbye, and {last}.",
    )
    _close(s, A, [
        "Now, every night, one star winks at {A.name}'s window, and {A.he} always wink{A.s} back.",
        "{A.Name} went back to bed with damp feet and a very big secret.",
        "Whenever {A.name} looks at the pond, {A.he} remember{A.s} the night a star went swimming.",
    ])


def plot_talking_tree(s: Story) -> None:
    A = s.character(0.2)
    T = _being(s, "tree", TREE_NAMES)
    ask, did = s.pick(TREE_WISHES)
    s.ctx.update(A=A, T=T, ask=ask, did=s.fill(did, A=A))
    s.add(
        "At the end of the lane stood a very old tree with twisty roots.",
        "In the middle of the meadow grew an enormous old oak with a knobbly face in its bark.",
        "{A.Name} liked to sit under the big old tree at the edge of the park.",
    )
    s.add(
        "One afternoon, {A.name} was resting against its trunk when a deep voice said, \"Ahem.\"",
        "One day, as {A.name} leaned against the bark, the tree gave a long, creaky yawn.",
    )
    s.add(
        "\"Did you just talk?\" {A.name} asked, jumping up.",
        "\"Who said that?\" {A.name} whispered, looking all around.",
    )
    s.add(
        "\"It was me,\" said the tree, \"and my name is {T.name}.\"",
        "\"I'm {T.name},\" rumbled the tree. \"Most people are in too much of a hurry to hear me.\"",
    )
    s.add(
        "\"{ask}\" {T.name} asked.",
        "\"{ask}\" {T.name} said with a creak.",
    )
    if s.chance(0.6):
        s.add("{A.Name} nodded and {did}.", "\"Of course!\" said {A.name}, and {A.he} {did}.")
        s.add(
            "{T.Name}'s leaves rustled like happy applause.",
            "\"Ahhh,\" sighed {T.name}, and a shower of leaves floated down like confetti.",
        )
    else:
        s.add(
            "{A.Name} was a little scared and ran all the way home.",
            "At first, {A.name} was too surprised to answer, and {A.he} ran off.",
        )
        s.add(
            "But that night {A.he} kept thinking about the lonely old tree.",
            "But the next morning, {A.he} came back, feeling brave.",
        )
        s.add("\"I'm sorry I ran,\" {A.he} said, and {A.he} {did}.")
    s.add(
        "As a thank you, {T.name} dropped a shiny red apple into {A.his} hands.",
        "\"You may come and sit in my branches whenever you like,\" {T.name} said.",
        "{T.Name} made a swing from a low branch, just the right size for {A.name}.",
    )
    _close(s, A, [
        "And now, if you see a child whispering to a tree, you'll know why.",
        "{A.Name} visited {T.name} every day, and they never ran out of things to say.",
        "Nobody else believed that trees could talk, but {A.name} didn't mind.",
    ], "If you slow down and listen, the world has a lot to say.")


def plot_sock_monster(s: Story) -> None:
    A = s.kid()
    M = _being(s, "monster", _words("Grumbleweed Snorkel Fuzzbucket Norbert Lumpy Gloop Wumble"), pron=s.pick(["he", "she"]))
    s.ctx.update(A=A, M=M, sock=s.pick(SOCK_KINDS), fur=s.pick(["purple", "green", "blue", "orange", "spotty"]))
    s.add(
        "{A.Name}'s socks kept disappearing.",
        "Every morning, {A.name} found only one sock where there should have been two.",
        "Something strange was happening in {A.name}'s bedroom: the socks were vanishing.",
    )
    s.add(
        "First {A.his} {sock} was gone, then {A.his} school socks, and then even {A.his} dad's hiking socks.",
        "\"Where is my {sock}?\" {A.he} cried, for the fifth time that week.",
    )
    s.add(
        "One night, {A.name} heard a munching sound under the bed.",
        "That night, {A.name} shone a flashlight under {A.his} bed.",
    )
    s.add(
        "There sat a small {fur} monster with a sock hanging out of its mouth.",
        "Two big yellow eyes blinked back at {A.him} from a furry {fur} monster, chewing a sock.",
    )
    s.add(
        "\"Oops,\" said the monster. \"I'm {M.name}, please don't scream.\"",
        "\"Um, hello, I'm {M.name},\" mumbled the monster through a mouthful of wool.",
    )
    if s.chance(0.5):
        s.add(
            "\"Why are you eating my socks?\" {A.name} asked.",
            "\"Why are you eating MY socks?\" {A.name} demanded, hands on {A.his} hips.",
        )
        s.add(
            "\"Because they're delicious, and stripy ones taste like lemon,\" {M.name} said.",
            "\"I'm a sock monster, and socks are my favorite snack,\" {M.name} explained.",
        )
        s.add(
            "So they made a deal: {M.name} could eat all the socks with holes in them, but no others.",
            "{A.Name} thought for a moment. \"You can have the odd socks that have lost their partners.\"",
        )
    else:
        s.add(
            "{A.Name} peered closer and saw that the monster wasn't eating the socks at all, but knitting them together!",
            "Behind {M.name} was a huge, lumpy blanket made of every missing sock.",
        )
        s.add(
            "\"It's cold under here, and I only wanted a blanket,\" {M.name} said with a shiver.",
            "\"I get so chilly at night,\" {M.name} said, sniffing.",
        )
        s.add(
            "{A.Name} fetched a real blanket from the cupboard and gave it to {M.name}.",
            "So {A.name} gave {M.name} an old fleece blanket, and {M.he} gave back all the socks.",
        )
    s.add(
        "\"Thank you,\" {M.name} said, and gave a happy, rumbly purr.",
        "{M.Name} grinned a big, toothy grin and said, \"You're the nicest human I've ever met.\"",
    )
    _close(s, A, [
        "Now {A.name} never has cold feet, and {M.name} never has a cold tummy.",
        "And if you ever lose a sock, now you know where to look.",
        "Every night, {A.name} says good night to {A.his} mom, {A.his} dad, and the monster under the bed.",
    ])


def plot_snowman_summer(s: Story) -> None:
    A = _being(s, "snowman", SNOWMAN_NAMES, pron="he")
    B = _friend(s)
    s.ctx.update(A=A, B=B, nose=s.pick(["a carrot", "a pinecone", "a red button", "a crooked stick"]),
                 things=s.pick(SUMMER_THINGS))
    s.add(
        "{B.Name} built a snowman in the yard and gave him {nose} for a nose.",
        "On the first snowy day, {B.name} rolled three big snowballs and made a snowman named {A.name}.",
        "There was once a snowman called {A.name}, with coal eyes and {nose} for a nose.",
    )
    s.add(
        "That night, {A.name} blinked and wiggled his twig fingers.",
        "When the moon came up, {A.name} came to life and looked around.",
    )
    s.add(
        "\"What's summer like?\" {A.name} asked {B.name} the next morning.",
        "{A.Name} had heard about summer and wanted to see it more than anything.",
    )
    s.add(
        "\"It's warm and sunny, and there are {things},\" {B.name} said.",
        "\"Summer has {things},\" {B.name} told him. \"But it's very hot.\"",
    )
    s.add(
        "\"Oh, I wish I could see it,\" {A.name} sighed.",
        "\"Could a snowman ever see summer?\" {A.name} wondered.",
    )
    if s.chance(0.5):
        s.add(
            "{B.Name} had a clever idea. {B.He} asked {B.his} mom if the snowman could live in the big freezer.",
            "In spring, {B.name} and {B.his} dad carried {A.name} to the big freezer in the garage.",
        )
        s.add(
            "On the first hot day of summer, {B.name} opened the freezer door wide.",
            "When summer came, {B.name} opened the freezer and turned on a fan.",
        )
        s.add(
            "{A.Name} peeked out and saw the sunshine, the flowers and a butterfly on his nose. \"It's wonderful!\" he cried.",
            "{A.Name} saw green grass and children with ice creams. \"It's even better than I dreamed,\" he said.",
        )
    else:
        s.add(
            "{B.Name} couldn't bring summer in winter, so {B.he} brought summer to {A.name}.",
            "{B.Name} had an idea, and {B.he} ran inside.",
        )
        s.add(
            "{B.He} drew pictures of {things}, and stuck a paper sun on the fence.",
            "{B.He} brought out sunglasses, a beach towel and a paper umbrella for {A.name}.",
        )
        s.add(
            "\"Is this summer?\" {A.name} laughed, wearing a sun hat in the snow.",
            "{A.Name} wore the sunglasses proudly. \"I feel very summery,\" he said.",
        )
    _close(s, A, [
        "He was the happiest snowman in the whole world.",
        "\"Best summer ever,\" {A.name} said, and he gave a frosty little wink.",
        "And {B.name} promised to build him again every single winter.",
    ], "Good friends find a way to make wishes come true.")


def plot_pirate_scared_of_water(s: Story) -> None:
    A = _being(s, "pirate", PIRATE_NAMES)
    s.ctx.update(A=A, crew=s.pick(PIRATE_CREW), ship=s.pick(["the Soggy Biscuit", "the Wobbly Gull",
                                                             "the Salty Pickle", "the Jolly Jellyfish"]))
    s.add(
        "{A.Name} had a ship called {ship}, a big hat and a terrible secret.",
        "Ahoy! This is the story of {A.name}, the bravest pirate on the seven seas. Well, almost.",
        "{A.Name} was a pirate with a wooden chest full of maps.",
    )
    s.add(
        "{A.He} was afraid of water.",
        "The secret was this: {A.name} was scared of the sea.",
    )
    s.add(
        "Every time a wave splashed the deck, {A.he} squeaked and hid in a barrel.",
        "{A.He} never looked over the side of the ship, and {A.he} never, ever went swimming.",
    )
    s.add(
        "{A.His} crew was just {crew}, and they were very patient.",
        "Luckily, {A.he} had {crew} to steer the ship.",
    )
    s.add(
        "One day, {A.his} treasure map blew overboard and floated on the waves.",
        "One morning, {A.his} lucky hat flew off and landed in the water with a plop.",
    )
    s.add(
        "\"Shiver me timbers, somebody get it!\" {A.he} cried.",
        "\"Oh, barnacles,\" {A.name} moaned. \"What do I do?\"",
    )
    if s.chance(0.5):
        s.add(
            "Nobody else could reach it, so {A.name} put on two big orange armbands.",
            "{A.Name} took a deep breath, held {A.his} nose and climbed down the rope ladder.",
        )
        s.add(
            "{A.He} paddled and kicked, and the water was actually quite nice.",
            "{A.He} splashed and spluttered, but {A.he} floated in the warm, bubbly water!",
        )
        s.add(
            "\"I'm swimming!\" {A.he} shouted. \"I'm a swimming pirate!\"",
            "\"Look at me, crew!\" {A.he} laughed, waving the soggy prize.",
        )
    else:
        s.add(
            "A friendly dolphin popped up with it on her nose.",
            "A big sea turtle swam up and carried it back on his shell.",
        )
        s.add(
            "\"The water isn't scary,\" the sea creature said. \"Come and see.\"",
            "\"Why don't you dip a toe in?\" asked the sea creature kindly.",
        )
        s.add(
            "{A.Name} dipped one toe in, then two, and then {A.he} sat on the bottom step and giggled.",
            "So {A.name} dangled {A.his} boots in the water and found it tickled.",
        )
    _close(s, A, [
        "From then on, {A.name} swam every morning before breakfast.",
        "It was the start of a whole new kind of pirate adventure.",
        "Now {A.name} is known as the pirate who learned to love the sea.",
    ], "Being brave means doing something even when you are afraid.")


def plot_tiptoe_giant(s: Story) -> None:
    A = _being(s, "giant", GIANT_NAMES, adj=s.pick(["gentle", "kind", "friendly", "enormous"]))
    oops, noise = s.pick(GIANT_OOPS)
    s.ctx.update(A=A, oops=s.fill(oops, A=A), noise=noise)
    s.add(
        "Beyond the hills lived {A.a} named {A.name}, as tall as ten houses.",
        "{A.Name} was a giant so big that clouds got tangled in {A.his} hair.",
        "Once upon a time, there was {A.a} called {A.name}, who had feet the size of boats.",
    )
    s.add(
        "Whenever {A.name} walked, the ground went BOOM, and the village woke up.",
        "Every step {A.he} took rattled the windows and spilled everyone's milk.",
    )
    s.add(
        "So {A.name} learned to tiptoe, very slowly and very carefully.",
        "\"I'll tiptoe,\" {A.name} decided. \"Nobody will even hear me.\"",
    )
    s.add(
        "Every night, {A.he} crept past the village on the tips of {A.his} enormous toes.",
        "Tip, tip, tip went the giant past the sleeping cottages.",
    )
    s.add(
        "But one night, {A.he} {oops}. \"{noise}!\"",
        "Then, right in the middle of the village, {A.he} {oops}. \"{noise}!\"",
    )
    s.add(
        "Lights flicked on in every window.",
        "Dogs barked and babies cried and doors flew open.",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} sat down and covered {A.his} face. \"I'm so sorry,\" {A.he} whispered, as quietly as a giant can.",
            "\"Oh dear, oh dear,\" {A.name} mumbled, turning pink from {A.his} nose to {A.his} ears.",
        )
        s.add(
            "But the villagers only laughed. \"We didn't know you tiptoed for us!\" said the baker.",
            "An old woman patted {A.his} big toe. \"What a thoughtful giant you are,\" she said.",
        )
    else:
        s.add(
            "The villagers ran out, but when they saw the embarrassed giant, they started to giggle.",
            "Everyone came outside, and they found {A.name} trying to hide behind a haystack.",
        )
        s.add(
            "\"You don't need to tiptoe,\" a boy called up. \"We'll just wear earmuffs!\"",
            "\"Come and have cocoa with us,\" said the mayor. \"In a bucket, of course.\"",
        )
    _close(s, A, [
        "Now the village knits {A.name} giant fluffy socks, so {A.he} can walk as softly as a cat.",
        "And if you hear a gentle thump at night, it's only {A.name}, tiptoeing home.",
        "From then on, {A.name} and the village were the best of neighbors.",
    ], "Being thoughtful is the biggest thing a giant can be.")


def plot_magic_paintbrush(s: Story) -> None:
    A = s.kid()
    what, did = s.pick(PAINTED_THINGS)
    s.ctx.update(A=A, what=what, did=s.fill(did, A=A), big=s.pick(TOO_BIG),
                 where=s.pick(["in grandma's attic", "at a junk sale", "in a dusty drawer", "under the school stairs"]))
    s.add(
        "{A.Name} found an old paintbrush {where}.",
        "One rainy afternoon, {A.name} found a {mag} paintbrush {where}.",
        "{A.Name} loved painting, so {A.he} was thrilled to find a brush with silver bristles {where}.",
        mag=s.pick(MAGIC_ADJ),
    )
    s.add(
        "{A.He} dipped it in paint and painted {what}.",
        "To test it, {A.name} painted {what}.",
    )
    s.add(
        "The picture wiggled, and then the {noun} {did}!",
        "Suddenly, the {noun} {did}!",
        noun=what.split()[-1],
    )
    s.add(
        "\"It's magic!\" {A.name} gasped.",
        "\"No way,\" {A.name} whispered, rubbing {A.his} eyes.",
    )
    s.add(
        "{A.He} painted and painted: a cupcake, a kitten, a pair of roller skates.",
        "{A.Name} painted a cookie, a kite and a little red wagon, and each one came to life.",
    )
    if s.chance(0.5):
        s.add(
            "Then {A.he} got carried away and painted {big}.",
            "Feeling bold, {A.he} painted {big}, right across the wall.",
        )
        s.add(
            "It burst out of the picture and squashed against the ceiling! The house creaked and groaned.",
            "It was far too big for the room, and the windows began to bulge.",
        )
        s.add(
            "Quickly, {A.name} painted a huge door, and it squeezed out into the garden.",
            "Thinking fast, {A.name} painted an open gate to the park, and off it went.",
        )
        s.add(
            "\"Phew,\" {A.he} giggled. \"I'll paint smaller things from now on.\"",
            "\"Next time,\" {A.name} said, \"I'll think before I paint.\"",
        )
    else:
        s.add(
            "Then {A.he} thought of {A.his} neighbor, who was sad because her garden had died.",
            "Then {A.he} saw that the old man next door had no flowers at all.",
        )
        s.add(
            "So {A.name} painted a whole garden of roses and sunflowers on the fence.",
            "{A.He} painted tulips, daisies and an apple tree, and they all grew real roots.",
        )
        s.add(
            "\"Who did this?\" the neighbor laughed, smelling the flowers.",
            "The neighbor came out and could not stop smiling.",
        )
    _close(s, A, [
        "{A.Name} kept the brush in a special box and only used it for very good reasons.",
        "To this day, {A.name} paints every day, with magic or without it.",
        "And the {noun} still lives with {A.name}, which is hard to explain to visitors.",
    ], "A little magic goes a long way when you use it kindly.", noun=what.split()[-1])


def plot_door_in_tree(s: Story) -> None:
    A = s.character(0.25)
    who, inside = s.pick(DOOR_FOLK)
    s.ctx.update(A=A, who=who, inside=inside, col=s.pick(["red", "blue", "green", "yellow"]))
    s.add(
        "{A.Name} was walking through the woods when {A.he} saw a tiny {col} door at the bottom of an old tree.",
        "One afternoon, {A.name} found a tiny {col} door at the bottom of an old tree.",
        "Behind {A.name}'s house was a hollow tree, and at its roots was a little {col} door.",
    )
    s.add(
        "It had a round brass knob and a doormat that said WELCOME.",
        "It was no bigger than a book, with a knocker shaped like a snail.",
    )
    s.add(
        "{A.Name} knelt down and knocked. Tap, tap, tap.",
        "Very politely, {A.name} knocked three times.",
    )
    s.add(
        "The door creaked open, and there stood {who}.",
        "After a moment, {who} peeked out.",
    )
    s.add(
        "\"Well, hello,\" it said. \"We don't get many visitors.\"",
        "\"Are you here for tea?\" it asked, as if this happened every day.",
    )
    if s.chance(0.5):
        s.add(
            "\"I'd love to come in, but I'm too big,\" {A.name} said.",
            "\"I won't fit,\" {A.name} said sadly.",
        )
        s.add(
            "\"Eat one of these,\" said the little host, handing {A.him} a crumb of seed cake.",
            "The host sprinkled {A.him} with pollen, and {A.he} shrank smaller and smaller.",
        )
        s.add(
            "Inside was {inside}. They drank dew from thimbles and told stories.",
            "{A.Name} stepped inside and saw {inside}. It was the coziest place {A.he} had ever been.",
        )
        s.add(
            "When it was time to go, {A.he} grew back to normal size with a pop.",
            "At sunset, {A.name} stepped back outside and grew big again.",
        )
    else:
        s.add(
            "{A.Name} lay on {A.his} tummy and peeked through the doorway.",
            "{A.Name} was too big to go in, so {A.he} just looked.",
        )
        s.add(
            "Inside was {inside}.",
            "{A.He} could see {inside}.",
        )
        s.add(
            "\"Come back tomorrow, and bring a friend,\" said the host, and the door clicked shut.",
            "\"Same time next week?\" asked the host, and {A.name} nodded hard.",
        )
    _close(s, A, [
        "{A.Name} never told anyone where the door was. Some secrets are too special to share.",
        "The next day, {A.name} knocked again, but this time {A.he} brought a cookie to share.",
        "Now, whenever {A.name} sees an old tree, {A.he} always check{A.s} the roots.",
    ])


def plot_cardboard_rocket(s: Story) -> None:
    A = s.kid()
    moon, look, act = s.pick(MOON_FINDS)
    s.ctx.update(A=A, p1=s.pick(ROCKET_PARTS[1:]), moon=moon, look=look, act=s.fill(act, A=A),
                 P=s.parent(A))
    s.add(
        "{A.Name} wanted to go to the moon, so {A.he} built a rocket.",
        "\"Today I'm going to the moon,\" {A.name} announced at breakfast.",
        "{A.Name} had a big cardboard box and a very big plan.",
    )
    s.add(
        "{A.He} used {p} for the body and {p1}.",
        "The rocket was made of {p} and {p1}, with SPACE written on the side in crayon.",
        p=ROCKET_PARTS[0],
    )
    s.add(
        "{A.Name} climbed inside, pulled on {A.his} helmet and counted, \"Ten, nine, eight...\"",
        "{A.He} squeezed in and shouted, \"Three, two, one, blast off!\"",
    )
    s.add(
        "The box shook, the kitchen disappeared, and whoosh, {A.name} was flying past the stars.",
        "With a rumble and a roar, the rocket zoomed out of the window and up into space.",
    )
    s.add(
        "{A.He} landed on the moon with a soft bump, and it was gray and dusty and very quiet.",
        "The moon was bumpy and silver, and {A.name} bounced high with every step.",
    )
    s.add(
        "There {A.he} met {moon} {look}, who {act}.",
        "Behind a crater was {moon} {look}. It {act}.",
    )
    if s.chance(0.5):
        s.add(
            "\"Would you like to play moon tag?\" {A.name} asked, and they bounced around for hours.",
            "They had a jumping contest, and {A.name} won by jumping right over a crater.",
        )
    else:
        s.add(
            "{A.Name} shared {A.his} sandwich, and the moon creature shared a moon rock that sparkled.",
            "They swapped presents: {A.name} gave a sticker, and got a shiny moon pebble.",
        )
    s.add(
        "Then {A.he} heard a faraway voice call, \"{A.Name}, dinner's ready!\"",
        "Suddenly {P.name} called from far, far away. \"Time for dinner!\"",
    )
    s.add(
        "{A.He} zoomed home and climbed out of the box, just in time for spaghetti.",
        "Back in the kitchen, {A.name} hopped out of the box with a very dusty grin.",
    )
    _close(s, A, [
        "\"How was the moon?\" {P.name} asked with a wink, and {A.name} said, \"Bouncy!\"",
        "And in {A.his} pocket, there was a small gray pebble that {A.he} couldn't explain.",
        "Tomorrow, {A.name} is going to Mars.",
    ])


def plot_mermaid_comb(s: Story) -> None:
    A = _being(s, "mermaid", MERMAID_NAMES, pron="she")
    B = _friend(s)
    s.ctx.update(A=A, B=B, spot=s.pick(BEACH_HIDING), tail=s.pick(["green", "silver", "blue", "pink", "turquoise"]))
    s.add(
        "Deep in the sea lived a mermaid named {A.name}, with a shimmering {tail} tail.",
        "{A.Name} was a little mermaid who lived in a castle made of coral.",
        "Far out where the waves are blue, a mermaid called {A.name} sang to the fish.",
    )
    s.add(
        "She had a golden comb made from a shell, and she combed her hair every morning.",
        "Her most precious thing was her comb, carved from a pearly shell.",
    )
    s.add(
        "One stormy night, a big wave swept the comb away.",
        "But one day, a naughty seagull snatched the comb and dropped it on the shore.",
    )
    s.add(
        "{A.Name} cried, and her tears turned into tiny pearls.",
        "\"My comb! My beautiful comb!\" {A.name} wept.",
    )
    s.add(
        "The next morning, {B.name} was walking on the beach and found a shiny comb {spot}.",
        "On the beach, {B.name} found something glittering {spot}.",
    )
    s.add(
        "\"This looks special, and somebody must be missing it,\" {B.he} said.",
        "{B.Name} turned it over in {B.his} hands, and it seemed too beautiful to belong to anyone on land.",
    )
    if s.chance(0.5):
        s.add(
            "{B.Name} heard soft crying coming from the rocks and saw a flash of {tail} tail.",
            "Then {B.he} heard a sad song drifting across the water.",
        )
        s.add(
            "\"Is this yours?\" {B.name} called, holding up the comb.",
            "{B.Name} waded out and held up the comb. \"Are you looking for this?\"",
        )
    else:
        s.add(
            "{B.Name} put the comb on a flat rock by the water and waited.",
            "{B.Name} decided to leave the comb where the waves could reach it, and hid behind a rock to watch.",
        )
        s.add(
            "At sunset, a mermaid's head popped out of the waves, and her eyes lit up.",
            "Soon a mermaid peeked out of the water and gasped with joy.",
        )
    s.add(
        "\"Thank you, thank you!\" {A.name} said, and she gave {B.name} a pearl as bright as the moon.",
        "{A.Name} hugged the comb. \"You're a true friend,\" she said, and she gave {B.name} a singing shell.",
    )
    _close(s, A, [
        "Whenever {B.name} holds the shell to {B.his} ear, {B.he} can hear {A.name} singing.",
        "Now, if you see a flash of {tail} in the waves, wave hello to {A.name}.",
        "And every summer, {A.name} waits by the rocks to say hello to her friend.",
    ], "Returning what is lost is a gift all by itself.")


def plot_scared_ghost(s: Story) -> None:
    A = _being(s, "ghost", GHOST_NAMES, adj=s.pick(["little", "nervous", "small", "shy"]))
    B = _friend(s)
    s.ctx.update(A=A, B=B)
    s.add(
        "In the attic of an old house lived {A.a} named {A.name}.",
        "{A.Name} was a ghost, but not a very spooky one.",
        "Once upon a midnight, there was {A.a} called {A.name}.",
    )
    s.add(
        "Most ghosts like to say BOO, but {A.name} was scared of children.",
        "{A.Name} was afraid of just one thing: children.",
    )
    s.add(
        "\"They're so loud,\" {A.he} whispered, \"and they have sticky fingers!\"",
        "Whenever {A.he} heard little footsteps, {A.he} hid inside the old wardrobe.",
    )
    s.add(
        "One day, a family moved in, with a {B.kind} named {B.name}.",
        "Then one summer, {B.name} came to stay, and {B.he} loved exploring.",
    )
    s.add(
        "{B.Name} climbed up to the attic and opened the wardrobe.",
        "On a rainy afternoon, {B.name} found the attic and peeked inside the wardrobe.",
    )
    s.add(
        "\"AAAH!\" screamed {A.name}, and \"AAAH!\" screamed {B.name}.",
        "{A.Name} and {B.name} saw each other and screamed at exactly the same time.",
    )
    if s.chance(0.5):
        s.add(
            "Then they both started giggling, because the scream had sounded so silly.",
            "Then {B.name} laughed. \"You're scared of ME?\"",
        )
        s.add(
            "\"I'm sorry I screamed,\" said {A.name}, floating out a little.",
            "{A.Name} peeked out from behind a hatbox. \"You're not so scary after all,\" {A.he} said.",
        )
    else:
        s.add(
            "{A.Name} zoomed behind a chimney, trembling like a sheet on a washing line.",
            "{A.Name} was so frightened that {A.he} went completely see-through.",
        )
        s.add(
            "\"It's okay,\" {B.name} said softly. \"I won't hurt you. Do you want a cookie?\"",
            "{B.Name} sat down quietly and waited. \"I'm a bit scared too,\" {B.he} admitted.",
        )
        s.add(
            "Slowly, {A.name} floated closer, because ghosts can't eat cookies, but they love the smell.",
            "Little by little, {A.name} came out and sat next to {B.name}.",
        )
    s.add(
        "Soon they were playing hide and seek, and {A.name} was very good at it.",
        "They spent the afternoon telling jokes, and {A.name} told the spookiest knock-knock jokes.",
    )
    _close(s, A, [
        "{A.Name} isn't scared of children anymore, just of vacuum cleaners.",
        "Now {A.name} and {B.name} are best friends, and they say BOO to each other every morning.",
        "And that is how a scared ghost found a brave friend.",
    ], "Sometimes the ones who scare us are scared too.")


def plot_unicorn_cold(s: Story) -> None:
    A = _being(s, "unicorn", UNICORN_NAMES, pron="she")
    B = _being(s, s.pick(["fox", "rabbit", "hedgehog", "owl", "badger"]),
               _words("Hazel Bramble Thistle Tumble Juniper Pocket"))
    s.ctx.update(A=A, B=B, sym=s.pick(COLD_SYMPTOMS), sneeze=s.pick(SNEEZE_RESULTS), cure=s.pick(COLD_CURES))
    s.add(
        "{A.Name} was a unicorn with a silver horn and a mane like cotton candy.",
        "In an enchanted meadow lived a unicorn named {A.name}.",
        "{A.Name} the unicorn usually pranced through the meadow every morning.",
    )
    s.add(
        "But one morning, she woke up with {sym}.",
        "Today, though, {A.name} had caught a cold and had {sym}.",
    )
    s.add(
        "\"Ah... ah... AH-CHOO!\" went {A.name}, and out came {sneeze}!",
        "She sneezed, and instead of a normal sneeze, out burst {sneeze}.",
    )
    s.add(
        "With every sneeze, flowers turned blue and a tree grew polka dots.",
        "Each sneeze was more magical than the last: the daisies turned blue, and an old tree grew pink polka dots.",
    )
    s.add(
        "{A.Name}'s friend {B.name} the {B.kind} came running.",
        "\"Bless you, are you okay?\" asked {B.name} the {B.kind}, hurrying over.",
    )
    s.add(
        "\"I don't feel very sparkly,\" {A.name} sniffled.",
        "\"My horn feels all droopy,\" {A.name} said in a stuffy voice.",
    )
    if s.chance(0.5):
        s.add(
            "{B.Name} brought {cure}, and tucked a leafy blanket around her.",
            "{B.Name} made {cure}, just like {B.his} grandma used to make.",
        )
        s.add(
            "{A.Name} slept all afternoon, and by evening her horn was shining again.",
            "After a long nap, {A.name} sneezed one last tiny rainbow and felt much better.",
        )
    else:
        s.add(
            "All the animals came to help. The birds sang, the bees brought honey, and the bunnies fluffed her pillows.",
            "The whole meadow came to look after her, bringing {cure} and lots of get-well-soon flowers.",
        )
        s.add(
            "\"Having friends is the best medicine,\" {A.name} said with a sleepy smile.",
            "Soon {A.name} felt warm and cozy, and her sneezes turned into giggles.",
        )
    s.add(
        "The next day, she was prancing again, and the polka-dot tree stayed that way forever.",
        "By morning she felt fine, though the blue flowers never changed back.",
    )
    _close(s, A, [
        "And everyone agreed that the polka-dot tree was their favorite.",
        "{A.Name} never forgot who looked after her when she was sick.",
        "\"Thank you,\" {A.name} told {B.name}, and she sneezed just one more, very small, sparkle.",
    ], "Taking care of a friend is a kind of magic too.")


def plot_silly_hat_contest(s: Story) -> None:
    A = s.kid()
    b1, b2, b3 = s.rng.sample(HAT_BITS, 3)
    B = _friend(s)
    s.ctx.update(A=A, B=B, b1=b1, b2=b2, b3=b3, prize=s.pick(HAT_PRIZES))
    s.add(
        "The town was having a silly hat contest, and {A.name} wanted to win.",
        "\"Silly Hat Contest, Saturday at noon!\" said the poster, and {A.name} was so excited.",
        "Every year, the whole town wore silly hats on the same day, and this year {A.name} had a plan.",
    )
    s.add(
        "{A.He} started with an old straw hat.",
        "{A.He} found {A.his} grandpa's old top hat in the closet.",
    )
    s.add(
        "Then {A.he} added {b1}, {b2} and {b3}.",
        "On top, {A.he} glued {b1}. Then came {b2}. Last of all, {A.he} added {b3}.",
    )
    s.add(
        "It was so tall that {A.he} had to duck under the door.",
        "It wobbled, it jingled, and it was very, very silly.",
    )
    s.add(
        "\"That's the silliest hat I've ever seen!\" laughed {B.name}.",
        "{B.Name} had made a hat shaped like a giant cupcake. \"Yours is sillier,\" {B.he} giggled.",
    )
    if s.chance(0.5):
        s.add(
            "But on the way to the contest, a gust of wind blew the hat right off!",
            "Then, halfway across the square, a sneaky breeze lifted the hat into the air.",
        )
        s.add(
            "It landed on the mayor's head, and the whole crowd laughed and cheered.",
            "It spun like a top and landed right on a very surprised goat.",
        )
        s.add(
            "The judges laughed so much they gave {A.name} a special prize: Best Flying Hat.",
            "\"That's the best trick of all!\" said the judges, and they gave {A.name} a shiny ribbon.",
        )
    else:
        s.add(
            "At the contest, there were hats shaped like fish, hats with candles, and one hat that was just a soup pot.",
            "The contest was full of wonderful hats, like a hat made of spaghetti and one with a live hen on it.",
        )
        s.add(
            "When the judges came to {A.name}, a piece of the hat fell off and bounced on the judge's nose.",
            "Just as the judge leaned closer, {A.his} hat gave a big wobble and a loud squeak.",
        )
        s.add(
            "Everyone laughed, and {A.name} won the prize for {prize}!",
            "The judges giggled and gave {A.name} the golden ribbon for {prize}.",
        )
    _close(s, A, [
        "{A.Name} wore the hat all the way home, and all the next day too.",
        "{A.Name} and {B.name} are already planning next year's hats.",
        "The hat now sits on {A.his} shelf, still wobbling a little whenever someone walks by.",
    ])


def plot_cat_thinks_dog(s: Story) -> None:
    A = _being(s, "cat", CAT_NAMES, adj=s.pick(["ginger", "striped", "black", "fluffy", "little"]))
    D = _being(s, "dog", _words("Rufus Bingo Barkley Duke Buster Rosie Maxi Patch"))
    s.ctx.update(A=A, D=D, habit1=s.fill(s.pick(DOG_HABITS), A=A))
    s.add(
        "{A.Name} was {A.a} who lived with a big family and a big dog named {D.name}.",
        "There once was {A.a} called {A.name} who grew up in a basket full of puppies.",
        "{A.Name} was a cat. At least, that's what everyone else thought.",
    )
    s.add(
        "But {A.name} was sure {A.he} {A.was} a dog.",
        "{A.Name} believed, with all {A.his} heart, that {A.he} {A.was} a dog.",
    )
    s.add(
        "{A.He} {habit1}, and {A.he} tried to bark: \"Meow-woof! Woof-meow!\"",
        "Every day, {A.he} {habit1} and went \"Mi-woof!\" at the door.",
    )
    s.add(
        "\"Silly kitty,\" the family giggled.",
        "The neighbors stopped and stared. \"Did that cat just fetch a stick?\" one asked.",
    )
    s.add(
        "\"You're a cat, you know,\" {D.name} sighed.",
        "\"Cats don't fetch,\" {D.name} told {A.him} kindly. \"Cats climb.\"",
    )
    if s.chance(0.5):
        s.add(
            "One day, {D.name}'s ball got stuck high in a tree.",
            "Then one afternoon, a kite got stuck in the apple tree, and {D.name} couldn't reach it.",
        )
        s.add(
            "{D.Name} jumped and barked, but dogs can't climb trees.",
            "{D.Name} whined at the bottom of the trunk.",
        )
        s.add(
            "{A.Name} scrambled up the trunk, quick as a squirrel, and knocked it down.",
            "Without thinking, {A.name} zoomed up the tree and brought it back down.",
        )
        s.add(
            "\"Wow, maybe being a cat is pretty great,\" said {D.name}.",
            "\"That's a very cat thing to do, and it was amazing,\" said {D.name}.",
        )
    else:
        s.add(
            "\"But I like being a dog,\" {A.name} said, and {A.his} tail drooped.",
            "{A.Name} looked so sad that {D.name} changed {D.his} mind.",
        )
        s.add(
            "\"You can be whatever you like,\" {D.name} said. \"Let's go fetch.\"",
            "\"Okay,\" said {D.name}. \"You can be a dog, as long as I can nap in the sunny window like a cat.\"",
        )
        s.add(
            "So the dog napped in the sun, the cat chased the ball, and both were perfectly happy.",
            "From then on they took turns, and the family never knew who would fetch the newspaper.",
        )
    _close(s, A, [
        "And at night, {A.name} still curled up in the dog basket, purring like a motorboat.",
        "{A.Name} is still not quite sure what {A.he} {A.is_}, and that's okay.",
        "\"Woof-meow!\" said {A.name}, and everyone laughed.",
    ], "You can be yourself in your own special way.")


def plot_long_noodle(s: Story) -> None:
    A = s.kid()
    P = s.parent(A)
    p1, p2, p3 = (NOODLE_PLACES[i] for i in sorted(s.rng.sample(range(len(NOODLE_PLACES)), 3)))
    s.ctx.update(A=A, P=P, p1=p1, p2=p2, p3=p3)
    s.add(
        "It was spaghetti night, and {A.name} was very hungry.",
        "{A.Name} sat at the table while {P.name} put down a big bowl of noodles.",
        "{A.Name} loved noodles more than anything, especially long ones.",
    )
    s.add(
        "{A.He} picked up one noodle and began to slurp.",
        "{A.Name} grabbed the end of a noodle and sucked. Slurp!",
    )
    s.add(
        "{A.He} slurped and slurped, but the noodle did not end.",
        "The noodle kept coming, and coming, and coming.",
    )
    s.add(
        "\"How long is this noodle?\" {A.name} mumbled with {A.his} cheeks full.",
        "\"That's a very long noodle,\" said {P.name}, putting down {P.his} fork.",
    )
    s.add(
        "{A.Name} followed it {p1}, {p2} and {p3}.",
        "The noodle stretched {p1}, {p2}, and {p3}.",
    )
    s.add(
        "People stopped and stared, and a dog started chewing the other end.",
        "The baker, the mail carrier and three pigeons all came to see.",
    )
    if s.chance(0.5):
        s.add(
            "At last, at the very end, {A.name} found an old chef stirring an enormous pot.",
            "The noodle ended in the kitchen of a tiny restaurant, where a chef was laughing.",
        )
        s.add(
            "\"You found my record-breaking noodle!\" the chef cried. \"It's the longest in the world!\"",
            "\"I made it for the town party,\" the chef said. \"It's long enough for everyone.\"",
        )
        s.add(
            "So the whole town sat down at one long table and shared the noodle.",
            "That evening everybody in town ate a piece of the noodle, and there was still some left over.",
        )
    else:
        s.add(
            "\"Let's not eat it, let's play with it!\" {A.name} said.",
            "\"This noodle is too good to eat,\" {A.name} decided.",
        )
        s.add(
            "The children used it as the longest jump rope in the world, and everyone took a turn.",
            "They used it for a tug-of-war game across the river, and it didn't break once.",
        )
    _close(s, A, [
        "When {A.name} finally got home, {A.he} ate a nice, short noodle for dinner.",
        "\"Can we have noodles again tomorrow?\" {A.name} asked, and {P.name} just laughed.",
        "{A.Name} still checks every bowl of spaghetti, just in case.",
    ])


def plot_funny_wish(s: Story) -> None:
    A = s.kid()
    wish, happened, fixed = s.pick(FUNNY_WISHES)
    W = _being(s, s.pick(["fairy", "genie", "wishing fish"]), _words("Fizz Dewdrop Zinnia Bubbles Jinx Glimmer"))
    s.ctx.update(A=A, W=W, wish=wish, happened=s.fill(happened, A=A), fixed=fixed)
    s.add(
        "{A.Name} found a {W.kind} named {W.name} in the garden.",
        "One day, a tiny {W.kind} named {W.name} popped out of {A.name}'s lunch box.",
        "Nobody believed {A.name} when {A.he} said there was a {W.kind} living in the teapot, but there was.",
    )
    s.add(
        "\"You may have one wish,\" said {W.name}. \"But be very careful what you say.\"",
        "\"I'll grant you one wish,\" {W.name} said. \"Choose your words wisely.\"",
    )
    s.add(
        "{A.Name} didn't think for long, and {A.he} shouted, {wish}",
        "{wish} {A.name} cried, too excited to be careful.",
    )
    s.add(
        "Poof! In a flash of sparkles, {happened}.",
        "Zing! The wish came true, but not the way {A.he} expected: {happened}.",
    )
    s.add(
        "\"Oh no,\" said {A.name}. \"That's not what I meant at all!\"",
        "\"Um,\" {A.name} said. \"This is a bit too much.\"",
    )
    if s.chance(0.5):
        s.add(
            "\"Wishes are tricky things, so I'll give you one more,\" {W.name} giggled.",
            "{W.Name} laughed so hard {W.he} fell over, and then {W.he} gave {A.name} one more try.",
        )
        s.add(
            "This time, {A.name} thought very hard and {fixed}.",
            "So {A.name} took a deep breath, thought it all through, and {fixed}.",
        )
        s.add(
            "Everything settled down, just right.",
            "It worked perfectly.",
        )
    else:
        s.add(
            "But after a while, {A.name} began to laugh, because it was actually quite funny.",
            "Then {A.name} started giggling, and {A.he} couldn't stop.",
        )
        s.add(
            "\"Maybe it's not so bad,\" {A.he} said, and {A.he} enjoyed the silliest afternoon of {A.his} life.",
            "{A.He} had so much fun that, at bedtime, {A.he} asked {W.name} to put it back to normal.",
        )
        s.add(
            "\"Next time, think first,\" said {W.name}, and with a snap, everything went back the way it was.",
            "{W.Name} snapped {W.his} fingers, and everything was normal again, well, almost.",
        )
    _close(s, A, [
        "After that, {A.name} always thought very carefully before making a wish.",
        "{A.Name} learned that wishes need just as much thinking as homework.",
        "{W.Name} still visits sometimes, just to hear {A.name} tell the story again.",
    ], "Be careful what you wish for, and say exactly what you mean.")


def plot_dinosaur_library(s: Story) -> None:
    A = _being(s, "dinosaur", DINO_NAMES, adj=s.pick(["big", "huge", "friendly", "gentle", "curious"]))
    L = Who(s.pick(["Miss Binding", "Mister Quill", "Miss Hush", "Mister Page"]), "she", "librarian")
    if L.name.startswith("Mister"):
        L = Who(L.name, "he", "librarian")
    s.ctx.update(A=A, L=L, topic=s.pick(BOOK_TOPICS))
    s.add(
        "One morning, {A.a} named {A.name} walked into the town library.",
        "{A.Name} was a dinosaur who loved books more than anything.",
        "The town library was quiet, until a dinosaur called {A.name} squeezed through the doors.",
    )
    s.add(
        "{A.He} wanted a book about {topic}.",
        "\"Do you have any books about {topic}?\" {A.he} whispered, as softly as a dinosaur can.",
    )
    s.add(
        "But {A.his} tail swished and knocked over a whole shelf of books with a crash.",
        "Swish went {A.his} tail, and down tumbled the picture books.",
    )
    s.add(
        "\"Shhh!\" said everyone in the library at once.",
        "{L.Name} the librarian looked over {L.his} glasses. \"Shush, please!\"",
    )
    s.add(
        "{A.Name} tried to tiptoe, but {A.his} feet went thud, thud, thud.",
        "{A.He} tried to be careful, but the chairs were too small and {A.his} head bumped the ceiling lamp.",
    )
    s.add(
        "\"I'm sorry, I just want to read,\" {A.name} said, and a big tear rolled down {A.his} scaly cheek.",
        "{A.Name} hung {A.his} head. \"Maybe libraries aren't for dinosaurs,\" {A.he} sniffed.",
    )
    if s.chance(0.5):
        s.add(
            "\"Libraries are for everyone,\" {L.name} said with a smile.",
            "\"Nonsense,\" said {L.name}. \"We just need a bigger reading chair.\"",
        )
        s.add(
            "{L.He} set up a reading corner in the garden, with a cushion as big as a car.",
            "So they moved the story rug outside, under the big oak tree.",
        )
        s.add(
            "{A.Name} read every book about {topic}, and turned the pages very, very gently.",
            "There, {A.name} read all afternoon, happy as could be.",
        )
    else:
        s.add(
            "Just then, the children arrived for story time.",
            "Then a group of children came in for story time and gasped.",
        )
        s.add(
            "\"Can the dinosaur read to us?\" they begged.",
            "\"A dinosaur! Will you read us a story?\" a little girl asked.",
        )
        s.add(
            "So {A.name} sat on the floor and read in {A.his} best rumbly voice, and nobody said shush at all.",
            "{A.Name} read a story about {topic}, doing all the voices, and the children clapped with joy.",
        )
    _close(s, A, [
        "Now {A.name} has {A.his} very own library card, extra large.",
        "Every Tuesday, the library has Dinosaur Story Time, and it's always full.",
        "{A.Name} still knocks over a shelf sometimes, but {L.name} doesn't mind anymore.",
    ], "Everyone belongs where there are books.")


def plot_runaway_shadow(s: Story) -> None:
    A = s.kid()
    spot1, spot2 = s.rng.sample(SHADOW_SPOTS, 2)
    s.ctx.update(A=A, spot1=spot1, spot2=spot2)
    s.add(
        "{A.Name} was playing in the sunshine when something strange happened.",
        "On a bright afternoon, {A.name} noticed {A.his} shadow was wiggling.",
        "Everybody has a shadow, and {A.name}'s shadow was usually very well behaved.",
    )
    s.add(
        "{A.His} shadow waved at {A.him}, peeled itself off the ground and ran away!",
        "Suddenly, {A.his} shadow let go of {A.his} feet and skipped off down the street.",
    )
    s.add(
        "\"Hey, come back!\" {A.name} shouted.",
        "\"Wait! You belong to me!\" {A.name} cried, chasing after it.",
    )
    s.add(
        "The shadow zipped {spot1} and then {spot2}.",
        "It slid {spot1}, and then jumped {spot2}.",
    )
    s.add(
        "It danced with a lamp post's shadow and played tag with a cat's shadow.",
        "It stretched very tall, then very short, just to tease {A.him}.",
    )
    s.add(
        "{A.Name} looked down at {A.his} feet and saw nothing at all, which felt very strange.",
        "Without a shadow, {A.name} felt thin, like a picture with no frame.",
    )
    if s.chance(0.5):
        s.add(
            "Then the sun began to set, and all the shadows grew long and sleepy.",
            "As the sun went down, the shadow began to fade and looked a little scared.",
        )
        s.add(
            "It ran back and snuggled up to {A.name}'s feet, as if to say sorry.",
            "The shadow hurried home and clung to {A.name}'s heels.",
        )
    else:
        s.add(
            "{A.Name} had an idea, so {A.he} stopped chasing and started to dance.",
            "So {A.name} sat down and pretended not to care.",
        )
        s.add(
            "The shadow couldn't resist coming back to copy {A.him}, and {A.he} quickly stepped on it.",
            "Curious, the shadow crept closer, and {A.name} grabbed it and held on tight.",
        )
    s.add(
        "\"Next time you want to play, just ask,\" {A.name} told it.",
        "\"Let's play together instead,\" {A.name} said, and the shadow nodded.",
    )
    _close(s, A, [
        "Now, every sunny day, {A.name} and {A.his} shadow play tag, and nobody wins.",
        "But sometimes, if you look closely, {A.name}'s shadow is doing something a little different.",
        "{A.Name} checked on {A.his} shadow every morning after that, just in case.",
    ])


def plot_singing_teapot(s: Story) -> None:
    A = _being(s, "teapot", TEAPOT_NAMES,
               adj=s.pick(["round", "old", "flowery", "chipped", "little"]))
    B = s.kid()
    s.ctx.update(A=A, B=B, song=s.pick(TEA_SONGS), G=s.pick(["grandma", "aunt", "grandpa", "uncle"]))
    s.add(
        "On the kitchen shelf sat {A.a} named {A.name}.",
        "{B.Name}'s {G} had a teapot called {A.name}, and it was no ordinary teapot.",
        "{A.Name} was {A.a}, and {A.he} had a secret: {A.he} could sing.",
    )
    s.add(
        "Whenever the water boiled, {A.name} sang {song}.",
        "When {A.he} got warm, {A.he} whistled and sang {song}.",
    )
    s.add(
        "\"Listen,\" said {B.name}. \"The teapot is singing again!\"",
        "{B.Name} loved to sit in the kitchen and listen.",
    )
    s.add(
        "One day, the family was having a big tea party for the neighbors.",
        "One afternoon, lots of guests came for tea and cake.",
    )
    if s.chance(0.5):
        s.add(
            "But with so many people watching, {A.name} felt shy and would not sing.",
            "{A.Name} looked at all the faces and got stage fright. Not a single note came out.",
        )
        s.add(
            "\"It's okay,\" {B.name} whispered to the teapot. \"Sing just for me.\"",
            "{B.Name} leaned close and hummed the first line to help {A.him}.",
        )
        s.add(
            "Very softly, {A.name} began to sing, and soon {A.his} voice filled the room.",
            "A tiny note came out, then another, and then a whole beautiful song.",
        )
    else:
        s.add(
            "{A.Name} was so excited that {A.he} sang louder and louder, and the lid bounced like a drum.",
            "{A.Name} sang so loudly that the cups rattled and the spoons began to dance.",
        )
        s.add(
            "The guests were amazed. \"A singing teapot!\" they gasped.",
            "The neighbors stopped eating cake and stared with open mouths.",
        )
        s.add(
            "Then the milk jug joined in, and the sugar bowl tapped out the rhythm.",
            "Soon the kettle and the saucers were singing too, in perfect harmony.",
        )
    s.add(
        "Everyone clapped, and {A.name} went pink all over {A.his} painted roses.",
        "When the song ended, the room burst into applause.",
    )
    _close(s, A, [
        "And the tea that day was the sweetest anyone had ever tasted.",
        "Now {A.name} sings at every tea party, and {B.name} always sings along.",
        "Whenever {B.name} hears a kettle whistle, {B.he} thinks of {A.name}.",
    ])


def plot_kite_ride(s: Story) -> None:
    A = s.kid()
    colr = s.pick(["red", "yellow", "rainbow", "blue", "orange"])
    s.ctx.update(A=A, sight1=s.fill(s.pick(KITE_SIGHTS), A=A), colr=colr, acol=f"{_article(colr)} {colr}",
                 tail=s.pick(["bows", "ribbons", "paper stars", "little flags"]))
    s.add(
        "{A.Name} had {acol} kite with a long tail of {tail}.",
        "It was a very windy day, perfect for {A.name}'s new {colr} kite.",
        "{A.Name} ran up the hill, pulling {A.his} {colr} kite behind {A.him}.",
    )
    s.add(
        "The wind caught the kite, and up it went, higher than the trees.",
        "Up, up, up went the kite, dancing in the sky.",
    )
    s.add(
        "Then a huge gust of wind blew, and {A.name}'s feet lifted off the ground!",
        "Whoosh! A big gust came, and suddenly {A.name} was flying too!",
    )
    s.add(
        "\"Whoa!\" {A.he} yelled, holding on tight to the string.",
        "\"Help, hooray, help!\" {A.name} shouted, not sure if {A.he} {A.was} scared or happy.",
    )
    s.add(
        "From up high, {A.he} could see {sight1}.",
        "Below {A.him}, {A.he} saw {sight1}.",
    )
    s.add(
        "A bird flew past and looked very surprised.",
        "\"Excuse me, are you lost?\" asked a goose, flapping beside {A.him}.",
    )
    if s.chance(0.5):
        s.add(
            "Then the wind grew tired and began to set {A.him} down, slowly and gently.",
            "After a while, the wind softened and lowered {A.him} like a feather.",
        )
        s.add(
            "{A.He} landed in a soft pile of hay, right next to a cow.",
            "{A.He} floated down and landed on a bouncy haystack.",
        )
        s.add(
            "\"Moo,\" said the cow, as if kids fell from the sky every day.",
            "\"That was amazing!\" {A.name} laughed, with hay in {A.his} hair.",
        )
    else:
        s.add(
            "A flock of geese took the kite string in their beaks and flew {A.him} home.",
            "A friendly stork grabbed the string and pulled {A.him} down to the garden.",
        )
        s.add(
            "{A.He} landed right in {A.his} own back garden, next to the washing line.",
            "{A.He} touched down softly on the lawn, just in time for lunch.",
        )
        s.add(
            "\"Thank you!\" {A.name} called, and the birds honked goodbye.",
            "\"Best flight ever,\" {A.name} told the birds as they flew away.",
        )
    _close(s, A, [
        "After that, {A.name} only flew {A.his} kite on gentle days, but {A.he} always hoped for a big gust.",
        "Nobody believed {A.name}'s story, except the cow.",
        "{A.Name} still dreams about flying, and in {A.his} dreams, {A.he} never let{A.s} go.",
    ])


def plot_mouse_wants_big(s: Story) -> None:
    A = _being(s, "mouse", MOUSE_NAMES, adj=s.pick(["tiny", "little", "small", "wee"]))
    big, trouble, helped = s.pick(BIG_ANIMALS)
    B = (Who(s.pick(["Bessie", "Gertie", "Dorothea"]), "she", big) if big == "giraffe"
         else Who(s.pick(["Leonard", "Bruno", "Mortimer", "Horace"]), "he", big))
    s.ctx.update(A=A, B=B, trouble=trouble, helped=s.fill(helped, A=A), trick=s.fill(s.pick(BIG_TRICKS), A=A))
    s.add(
        "{A.Name} was the smallest mouse in the whole field.",
        "There was once {A.a} named {A.name}, no bigger than a thimble.",
        "In a hole under the barn lived {A.a} called {A.name}.",
    )
    s.add(
        "{A.Name} wanted more than anything to be big.",
        "\"I wish I were big like a bear, or an elephant,\" {A.name} sighed every day.",
    )
    s.add(
        "{A.He} tried {trick}, but {A.he} was still very small.",
        "{A.He} even tried {trick}, but it didn't help at all.",
    )
    s.add(
        "\"Nobody notices small things,\" {A.he} said sadly.",
        "The other animals stepped right over {A.him} without seeing.",
    )
    s.add(
        "One day, {A.name} heard a loud groan. A {B.kind} named {B.name} {trouble}.",
        "Then {A.name} found {B.name}, a great big {B.kind}, who {trouble}.",
    )
    s.add(
        "\"I'm too big to fix it,\" {B.name} moaned.",
        "{B.Name} tried and tried, but {B.his} huge paws were far too clumsy.",
    )
    if s.chance(0.5):
        s.add(
            "\"Let me help,\" said {A.name}, and {A.he} {helped}.",
            "\"I can do it!\" {A.name} squeaked bravely, and {A.he} {helped}.",
        )
    else:
        s.add(
            "{A.Name} was scared of such a big animal, but {A.he} took a deep breath.",
            "{A.Name} almost ran away, but then {A.he} remembered how it felt to need help.",
        )
        s.add("Carefully, {A.he} {helped}.")
    s.add(
        "\"Thank you, little one, only someone small could have done that!\" said {B.name}.",
        "{B.Name} smiled a huge smile. \"You may be small, but you're the biggest help I've ever had.\"",
    )
    _feel(s, A, True)
    _close(s, A, [
        "From that day on, {A.name} never wished to be big again.",
        "{A.Name} stood a little taller after that, even if nobody else could tell.",
        "And now {A.name} and {B.name} are the oddest pair of friends in the land.",
    ], "Even the smallest friend can be a big help.")


PLOTS: list[Callable[[Story], None]] = [
    plot_toys_wake_at_night, plot_shy_dragon, plot_robot_learns_laugh, plot_tiny_king,
    plot_fixing_princess, plot_jelly_spell, plot_rain_cloud, plot_star_in_pond,
    plot_talking_tree, plot_sock_monster, plot_snowman_summer, plot_pirate_scared_of_water,
    plot_tiptoe_giant, plot_magic_paintbrush, plot_door_in_tree, plot_cardboard_rocket,
    plot_mermaid_comb, plot_scared_ghost, plot_unicorn_cold, plot_silly_hat_contest,
    plot_cat_thinks_dog, plot_long_noodle, plot_funny_wish, plot_dinosaur_library,
    plot_runaway_shadow, plot_singing_teapot, plot_kite_ride, plot_mouse_wants_big,
]
