"""Town, school, play, sport and small-mystery plots for the bundled story generator.

A sibling of :mod:`mlx_specdec.data.plots_nature` and
:mod:`mlx_specdec.data.plots_home`: stories about a class trip, a spelling
test, a new kid who speaks another language, a lemonade stand, a puppet show,
the post office, a fire truck visit, a street festival, a tow truck, a little
tugboat, a hot air balloon, a first swim, a soccer match, cookies that went
missing ... Each plot draws its cast once, sets ``s.ctx["A"]`` to the hero and
writes 6-14 sentences whose beats have several differently-worded
alternatives and at least one branch. Randomness comes only from ``s.rng``
(through ``s.pick`` and ``s.chance``), so a story is a pure function of its
seed.

The module brings its own lexicon (school subjects, science projects, board
games, market stalls, festival things, bakery goods, vehicles and their parts,
sports words, clues) so that it widens the vocabulary of the corpus.
"""

from __future__ import annotations

from typing import Callable

from .stories import (
    BOY_NAMES,
    GIRL_NAMES,
    PET_NAMES,
    Story,
    Who,
    _cap,
    _phrases,
    _words,
    ending,
)

# ---------------------------------------------------------------------------
# Lexicon of the town plots
# ---------------------------------------------------------------------------

TOWN_TIMES = _phrases(
    "On Tuesday | One Thursday | On a breezy Wednesday | One bright Friday | "
    "At the start of the week | On the first warm day of spring | One crisp autumn morning | "
    "After breakfast one day | On a cloudy Sunday | Just before the holidays | "
    "One lazy afternoon | In the middle of June"
)
TOWN_NAMES = _words(
    "Maple_Hollow Brookside Willow_Bend Pebbleton Kettle_Creek Oakridge Little_Harbor "
    "Cobble_Hill Fernbrook Sunnydale Millbrook Briar_Lane"
)
TEACHER_NAMES = _words("Miss_Finch Mister_Dale Miss_Okafor Mister_Grant Miss_Lark Mister_Quill Miss_Rivera")
SUB_NAMES = _words("Mister_Pim Miss_Thimble Mister_Wobble Miss_Marigold Mister_Bramble Miss_Juniper")
TRIP_PLACES = [
    # (place, what they saw, what went wrong)
    ("the aquarium", "a sleepy sea turtle and a tank of jellyfish that glowed like lanterns",
     "{A.name}'s sandwich got squashed at the bottom of {A.his} bag"),
    ("the science museum", "a giant model of a heart and a real moon rock",
     "{A.name} lost track of the group near the dinosaur bones"),
    ("the apple orchard", "rows and rows of trees heavy with fruit",
     "a bee buzzed right into {A.his} hood"),
    ("the fire station museum", "an old brass bell and a shiny antique engine",
     "{A.name} dropped {A.his} name tag somewhere in the hall"),
    ("the planetarium", "the whole night sky spinning over the ceiling",
     "{A.name} got dizzy looking up for so long"),
    ("the cheese farm", "big round wheels of cheese stacked like drums",
     "{A.name}'s boots got stuck in the muddy lane"),
]
SPELLING_WORDS = _words(
    "because enough through friend laugh people beautiful Wednesday tomorrow neighbor "
    "island answer knife often weight caught science"
)
LANGUAGES = [
    # (language, hello, thank you, friend)
    ("Spanish", "hola", "gracias", "amigo"),
    ("French", "bonjour", "merci", "ami"),
    ("Italian", "ciao", "grazie", "amico"),
    ("Swahili", "jambo", "asante", "rafiki"),
    ("Japanese", "konnichiwa", "arigato", "tomodachi"),
    ("German", "hallo", "danke", "freund"),
]
PLAY_ROLES = _phrases(
    "the wolf | a talking tree | the moon | a grumpy troll | the king | a dancing carrot | "
    "the north wind | a lighthouse | the narrator | a sleepy dragon | a royal frog"
)
LUNCHES = _phrases(
    "a cheese and pickle sandwich | cold noodles with sesame | a hummus wrap | "
    "rice balls wrapped in seaweed | a boiled egg and crackers | a bean burrito | "
    "a tuna sandwich | pasta salad | a pita with falafel | dumplings in a little tin | "
    "a bagel with cream cheese | leftover pizza"
)
PROJECTS = [
    # (project, how it was meant to work, what went wrong)
    ("a baking soda volcano", "fizz and bubble over the top", "it only made a tiny burp of foam"),
    ("a potato battery", "light a little bulb", "the bulb stayed dark"),
    ("a bean plant in a jar", "grow toward the window", "the bean tipped over in the bus"),
    ("a paper windmill", "spin in the breeze", "one of the blades fell off"),
    ("a rain gauge", "measure the rain all week", "the dog knocked it into a puddle"),
    ("a magnet maze", "pull a paper clip through the maze", "the paper clip kept jumping off"),
]
RECESS_GAMES = _phrases(
    "four square | freeze tag | red rover | kickball | hopscotch | duck duck goose | "
    "Simon says | capture the flag | sharks and minnows | hot lava"
)
BOARD_GAMES = _phrases(
    "snakes and ladders | checkers | a card game called Crazy Eights | dominoes | "
    "a marble game | a farm game with spinners | tic tac toe | a race game with dice"
)
PUPPETS = _phrases(
    "a sock dragon | a paper bag owl | a wooden spoon princess | a glove octopus | "
    "a felt crocodile | a button-eyed sheep | a mitten monster | a cardboard knight"
)
MAP_MARKS = _phrases(
    "the crooked oak | the blue mailbox | the old birdbath | the stone wall | "
    "the red garden gnome | the broken fence post | the tall hedge | the bench by the pond"
)
TREASURES = _phrases(
    "a tin of shiny bottle caps | a note that said YOU ARE MY BEST FRIEND | "
    "a bag of glass marbles | two friendship bracelets | a chocolate coin | "
    "a drawing of the two of them | a smooth striped pebble"
)
CHALK_PICTURES = _phrases(
    "a dragon with a curly tail | a castle with twelve towers | a giant ladybug | "
    "a rocket blasting off | a rainbow snake | a hopscotch path to the moon | "
    "a whale blowing bubbles | a garden full of giant flowers"
)
BOAT_STUFF = _phrases(
    "a folded newspaper | a page from an old comic | a square of waxed paper | "
    "a bright orange flyer | a sheet of shiny wrapping paper"
)
POST_THINGS = [
    # (thing, who it was for, where they lived)
    ("a letter", "{A.his} grandpa", "far away by the sea"),
    ("a birthday card", "{A.his} cousin", "in the mountains"),
    ("a small parcel", "{A.his} aunt", "in a big city"),
    ("a postcard", "{A.his} old teacher", "across the ocean"),
    ("a drawing in an envelope", "{A.his} pen pal", "on a farm in another country"),
]
STAMPS = _phrases(
    "a stamp with a tiger | a stamp with a steam train | a stamp with a tulip | "
    "a stamp with a lighthouse | a stamp with a hummingbird | a stamp with a rocket"
)
FIRE_THINGS = _phrases(
    "the long ladder | the coiled hose | the big silver siren | the heavy helmets | "
    "the row of shiny buttons | the axe in its holder | the spinning red lights"
)
MARKET_STALLS = [
    # (stall, seller's wares, what the hero got)
    ("the fruit stall", "crates of plums, figs and melons", "a paper bag of ripe figs"),
    ("the honey stall", "jars of golden honey and beeswax candles", "a tiny pot of honey"),
    ("the cheese stall", "cheeses as big as wheels", "a thin slice to try"),
    ("the flower stall", "buckets of sweet peas and peonies", "one bright peony"),
    ("the spice stall", "little hills of cinnamon, cumin and paprika", "a pinch of cinnamon to smell"),
    ("the fish stall", "shiny mackerel on crushed ice", "a wave from the fishmonger"),
]
FESTIVAL_THINGS = _phrases(
    "paper lanterns | a brass band | a juggler on stilts | a face painter | "
    "strings of colored flags | a giant dragon made of cloth | a man selling cotton candy | "
    "drummers in feathered hats | a stall with spinning pinwheels"
)
PLAYGROUND_THINGS = _phrases(
    "a twisty tube slide | a rope net shaped like a spider web | a zip line | "
    "a wobbly rope bridge | a climbing wall with colored grips | a merry-go-round | "
    "a tire swing | a sandpit with a little crane"
)
HAIRCUTS = _phrases(
    "a little off the top | a short back and sides | a neat trim | a buzz cut | "
    "bangs just above the eyebrows | a tidy side part"
)
BAKERY_GOODS = _phrases(
    "a cinnamon roll | a poppy seed bagel | a cherry tart | a sourdough loaf | "
    "a croissant | a pretzel with salt | a raisin bun | a lemon bar | a slice of banana bread"
)
DOG_LOOKS = _phrases(
    "a brown dog with one floppy ear | a tiny white dog with a red collar | "
    "a big shaggy dog with a wagging tail | a spotted dog with a blue bandana | "
    "a black dog with a white patch on its nose"
)
DOG_SPOTS = _phrases(
    "behind the bakery, sniffing the bins | asleep on the library steps | "
    "splashing in the fountain | under a bench in the square | "
    "sitting outside the butcher's shop | chasing pigeons by the station"
)
BUS_GIFTS = _phrases(
    "a card signed by every kid on the bus | a cupcake with one candle | "
    "a paper crown | a tin of homemade cookies | a drawing of the bus with a smiley face"
)
TOW_STUCK = [
    # (what was stuck, the same thing named again, where)
    ("a little red car", "the little red car", "in a muddy ditch"),
    ("an ice cream van", "the ice cream van", "in deep sand by the beach"),
    ("a farmer's old pickup", "the old pickup", "in a flooded lane"),
    ("a delivery truck", "the delivery truck", "on a steep icy hill"),
    ("a camper van", "the camper van", "in a soft field after the fair"),
]
BIG_SHIPS = _phrases(
    "a huge container ship | a tall cargo ship | a long oil tanker | a giant cruise ship | "
    "a heavy ferry"
)
BALLOON_SIGHTS = _phrases(
    "the river shining like a ribbon | cows as small as ants | the roof of the school | "
    "a train crawling like a caterpillar | fields stitched together like a quilt | "
    "the church steeple and the market square"
)
TRAIN_REASONS = _phrases(
    "a cow was standing on the tracks | a tree had fallen in the wind | "
    "a signal was stuck on red | the driver had to wait for a slow goods train"
)
SWIM_THINGS = _phrases(
    "a pair of green goggles | a striped swim cap | orange arm floats | a foam noodle | "
    "a kickboard"
)
SOCCER_POS = _phrases("goalkeeper | defender | striker | midfielder")
CLUES = _phrases(
    "a trail of crumbs | a smear of chocolate | a wagging tail sticking out | "
    "a sticky paw print | a wrapper under the table"
)
COOKIE_THIEVES = [
    # (who, where they were found, how)
    ("the dog", "under the kitchen table", "with crumbs all over its whiskers"),
    ("{A.his} little brother", "behind the sofa", "with chocolate on his chin"),
    ("Grandpa", "in his armchair", "with a guilty grin and a napkin tucked in his shirt"),
    ("the cat", "on top of the fridge", "licking a crumb off its paw"),
]
FOOTPRINT_OWNERS = [
    # (what made it, the real answer)
    ("a heron", "a tall gray heron stepping slowly through the shallow water"),
    ("a duck", "a mother duck with a line of ducklings waddling behind her"),
    ("a raccoon", "a raccoon washing its paws in the puddle"),
    ("{A.his} dad's boots", "{A.his} dad coming back from the shed in his big rubber boots"),
    ("a hedgehog", "a hedgehog snuffling under the hedge"),
]
BOOK_TITLES = _phrases(
    "The Moon Pirates | Ten Brave Penguins | The Secret of Cobble Bridge | "
    "Rosie and the Runaway Tram | How Whales Sing | The Giant Turnip Mystery"
)
BOOK_SPOTS = _phrases(
    "inside the piano bench | under the car seat | in the picnic basket | "
    "in {A.his} little sister's doll house | between two cookbooks in the kitchen | "
    "in the bottom of the beach bag"
)
SHY_WORDS = _words("wobbly fluttery jittery shaky fidgety")
GLAD_WORDS = _words("delighted thrilled giddy beaming proud overjoyed bubbly")

TOWN_ENDINGS = _phrases(
    "It had been a good day in town. | "
    "{A.Name} told the whole story at dinner, twice. | "
    "That night, {A.name} fell asleep still smiling. | "
    "{A.Name} couldn't wait to do it all again. | "
    "And that is how the day ended, happily. | "
    "The end."
)


def _grownup(s: Story, role: str, names: list[str]) -> Who:
    name = s.pick(names).replace("_", " ")
    pron = "he" if name.startswith(("Mister", "Grandpa", "Captain")) else "she"
    w = Who(name, pron, role)
    w.called = f"{name}, the {role}"
    return w


def _pal(s: Story) -> Who:
    """A friend who is a child (never an animal)."""
    return s.kid()


def _close(s: Story, A: Who, own: list[str], moral: str | None = None, p_own: float = 0.6,
           **kw: str) -> None:
    """Finish with the plot's own last line most of the time, else a moral or a town ending."""
    s.ctx.update(kw)
    if s.chance(p_own):
        s.add(*own)
    elif moral and s.chance(0.5):
        ending(s, A, moral, 1.0)
    else:
        s.add(*TOWN_ENDINGS)


def _town(s: Story) -> str:
    return s.pick(TOWN_NAMES).replace("_", " ")


# ---------------------------------------------------------------------------
# School and friends
# ---------------------------------------------------------------------------


def plot_class_trip(s: Story) -> None:
    A = s.kid()
    T = _grownup(s, "teacher", TEACHER_NAMES)
    B = _pal(s)
    place, saw, wrong = s.pick(TRIP_PLACES)
    s.ctx.update(A=A, T=T, B=B, place=place, saw=saw, time=s.pick(TOWN_TIMES))
    s.add(
        "{time}, {A.name}'s class went on a trip to {place}.",
        "{A.Name} had been waiting all month for the class trip to {place}.",
        "The yellow bus was waiting to take {A.name}'s class to {place}, and {A.name} was first in line.",
    )
    s.add(
        "\"Stay with your partner,\" said {T.name}, counting heads.",
        "{T.Name} handed out name tags and said, \"Partners hold hands.\"",
        "\"Everyone needs a buddy,\" {T.name} reminded them, and {A.name} picked {B.name}.",
    )
    s.add(
        "At {place}, they saw {saw}.",
        "Inside, there was {saw}.",
        "{A.Name} and {B.name} pressed their noses close and looked at {saw}.",
    )
    s.add("\"Wow,\" whispered {B.name}.", "\"Look at that!\" gasped {A.name}.",
          "\"I'm going to remember this forever,\" said {A.name}.")
    s.add("But then {wrong}.".replace("{wrong}", s.fill(wrong)),
          "Then, all of a sudden, {wrong}.".replace("{wrong}", s.fill(wrong)))
    if s.chance(0.5):
        s.add(
            "{B.Name} didn't laugh. {B.He} just helped.",
            "{B.Name} stayed right beside {A.him} until it was sorted out.",
        )
        s.add("\"That's what buddies are for,\" said {B.name}.",
              "\"We're partners, remember?\" {B.name} said with a grin.")
    else:
        s.add(
            "{A.Name} felt a lump in {A.his} throat, so {A.he} went straight to {T.name}.",
            "{A.Name} took a deep breath and told {T.name} what had happened.",
        )
        s.add("\"Thank you for telling me,\" said {T.name}, and {T.he} fixed it in no time.",
              "{T.Name} smiled. \"Easy to fix,\" {T.he} said, and it was.")
    s.add(
        "On the bus home, {A.name} and {B.name} shared a seat and talked about everything they'd seen.",
        "The ride back was noisy and happy, and {A.name} sang the whole way.",
        "Back at school, everyone drew a picture of {place}.",
    )
    _close(s, A, [
        "{A.Name} decided that {place} was the best place in the whole world.",
        "That night {A.name} dreamed about {place}.",
    ], "{A.Name} learned that a good buddy makes any trip better.")


def plot_spelling_test(s: Story) -> None:
    A = s.kid()
    T = _grownup(s, "teacher", TEACHER_NAMES)
    P = s.parent(A)
    w1, w2 = s.rng.sample(SPELLING_WORDS, 2)
    s.ctx.update(A=A, T=T, P=P, w1=w1, w2=w2, jit=s.pick(SHY_WORDS))
    s.add(
        "{A.Name} had a spelling test on Friday.",
        "There was a big spelling test coming, and {A.name} felt {jit} inside.",
        "\"Ten words by Friday,\" announced {T.name}, and {A.name} groaned.",
    )
    s.add(
        "The hardest word on the list was \"{w1}\".",
        "{A.Name} could spell most of them, but \"{w1}\" kept getting tangled.",
        "Every time {A.he} tried to write \"{w1}\", the letters came out in the wrong order.",
    )
    s.add(
        "\"Let's make it into a song,\" said {P.name}.",
        "{P.Name} wrote \"{w1}\" on a sticky note and put it on the fridge.",
        "\"Say it in pieces,\" suggested {P.name}, clapping for each part.",
    )
    s.add(
        "They practiced at breakfast, in the car and even in the bath.",
        "{A.Name} spelled it out loud while brushing {A.his} teeth.",
        "By Thursday, {A.name} could spell it backward and forward.",
    )
    s.add(
        "On Friday, {T.name} read the words aloud one by one.",
        "The classroom was very quiet as {T.name} began.",
    )
    if s.chance(0.6):
        s.add(
            "When \"{w1}\" came, {A.name} smiled and wrote it without stopping.",
            "\"{w1}\" was the fourth word, and {A.name}'s pencil flew.",
        )
        s.add(
            "{A.Name} got every word right and a gold star on top.",
            "\"Ten out of ten!\" said {T.name} on Monday.",
        )
        s.add("{A.Name} ran home waving the paper.", "\"The song worked!\" {A.name} laughed.")
    else:
        s.add(
            "{A.Name} got \"{w1}\" right, but mixed up \"{w2}\" instead.",
            "The word {A.he} had practiced was perfect, but \"{w2}\" tripped {A.him} up.",
        )
        s.add(
            "\"Nine out of ten is wonderful,\" said {T.name}.",
            "\"You tried so hard, and it shows,\" {T.name} told {A.him}.",
        )
        s.add("\"Next week, {w2} gets a song too,\" said {A.name}.",
              "{A.Name} wrote \"{w2}\" on a new sticky note and laughed.")
    _close(s, A, [
        "The sticky note stayed on the fridge for a long time after that.",
        "{A.Name} still hums the spelling song sometimes.",
    ], "{A.Name} learned that practice, a little at a time, really works.")


def plot_new_language(s: Story) -> None:
    A = s.kid()
    B = _pal(s)
    T = _grownup(s, "teacher", TEACHER_NAMES)
    lang, hello, thanks, friend = s.pick(LANGUAGES)
    s.ctx.update(A=A, B=B, T=T, lang=lang, hello=hello, thanks=thanks, friend=friend)
    s.add(
        "A new kid named {B.name} joined {A.name}'s class.",
        "On Monday, {T.name} brought a new student to the front of the room.",
        "{A.Name} noticed a new face at the table by the window.",
    )
    if s.ctx["A"] is A and "new student" in s.lines[-1]:
        s.add("\"This is {B.name},\" said {T.name}.", "\"Please welcome {B.name},\" said {T.name}.")
    s.add(
        "{B.Name} spoke {lang} and knew only a few words of English.",
        "{B.Name} had just moved from far away, and {B.his} words were {lang}.",
    )
    s.add(
        "At recess, {B.name} stood alone by the fence.",
        "At lunch, {B.name} sat by {B.himself} and looked at {B.his} tray.",
        "Nobody knew how to talk to {B.name}, so nobody tried.",
    )
    s.add(
        "{A.Name} walked over and waved.",
        "{A.Name} took a deep breath and went to sit beside {B.him}.",
    )
    s.add(
        "\"{hello_c},\" said {B.name} quietly.",
        "{B.Name} smiled a little and said, \"{hello_c}.\"",
        hello_c=_cap(hello),
    )
    if s.chance(0.5):
        s.add(
            "\"Does that mean hello?\" asked {A.name}, and {B.name} nodded.",
            "\"Hello!\" {A.name} said back, and then tried, \"{hello_c}!\"",
            hello_c=_cap(hello),
        )
        s.add(
            "They drew pictures to talk: a dog, a ball, a sun, a house.",
            "They pointed at things and taught each other the words.",
        )
    else:
        s.add(
            "{A.Name} didn't know any {lang}, so {A.he} rolled a ball to {B.name}.",
            "{A.Name} held up a ball and raised {A.his} eyebrows.",
        )
        s.add(
            "{B.Name} laughed and kicked it back, and soon they were playing.",
            "A ball, it turned out, meant the same thing in every language.",
        )
    s.add(
        "By the end of the week, {A.name} knew how to say \"{thanks}\" and \"{friend}\".",
        "Soon {A.name} could say \"{thanks}\", and {B.name} could say \"thank you\".",
    )
    _close(s, A, [
        "\"{friend_c},\" said {B.name}, pointing at {A.name}, and {A.name} grinned.",
        "Now they had two ways to say everything, and that felt like a secret treasure.",
    ], "{A.Name} learned that a smile needs no translation.", friend_c=_cap(friend))


def plot_school_play(s: Story) -> None:
    A = s.kid()
    T = _grownup(s, "teacher", TEACHER_NAMES)
    P = s.parent(A)
    role = s.pick(PLAY_ROLES)
    s.ctx.update(A=A, T=T, P=P, role=role, jit=s.pick(SHY_WORDS), glad=s.pick(GLAD_WORDS))
    s.add(
        "{A.Name}'s class was putting on a play for the whole school.",
        "The school play was only a week away.",
        "{T.Name} pinned a list of parts on the classroom door.",
    )
    s.add(
        "{A.Name} was going to be {role}.",
        "Next to {A.name}'s name it said: {role}.",
    )
    s.add(
        "{A.He} had one line, and {A.he} practiced it every night.",
        "\"It's only one line,\" {A.name} told {P.name}, \"but it's an important one.\"",
    )
    s.add(
        "On the big night, the hall was full of parents and grandparents.",
        "When the curtain opened, {A.name}'s knees felt {jit}.",
        "Behind the curtain, {A.name} peeked out at all the chairs.",
    )
    if s.chance(0.5):
        s.add(
            "When it was {A.his} turn, {A.his} mind went blank.",
            "{A.Name} stepped forward and forgot every single word.",
        )
        s.add(
            "Then {A.he} saw {P.name} in the second row, mouthing the line.",
            "\"You can do it,\" whispered {T.name} from the side of the stage.",
        )
        s.add(
            "{A.Name} remembered, said it loud and clear, and the audience clapped.",
            "The words came back all at once, and {A.name} said them proudly.",
        )
    else:
        s.add(
            "{A.Name} said {A.his} line so loudly that the back row heard every word.",
            "{A.Name} stood tall and said {A.his} line perfectly.",
        )
        s.add(
            "Then {A.he} added a little bow that nobody had planned, and everyone laughed.",
            "Someone in the front row cheered, \"Bravo!\"",
        )
    s.add(
        "At the end, the whole class held hands and bowed.",
        "\"You were wonderful,\" said {P.name} afterward, hugging {A.him} tight.",
    )
    _close(s, A, [
        "{A.Name} felt {glad}, and {A.he} asked if there would be another play next year.",
        "\"Can I have two lines next time?\" asked {A.name}.",
    ], "{A.Name} learned that being nervous and being brave can happen at the same time.")


def plot_lunch_swap(s: Story) -> None:
    A = s.kid()
    B = _pal(s)
    l1, l2 = s.rng.sample(LUNCHES, 2)
    s.ctx.update(A=A, B=B, l1=l1, l2=l2)
    s.add(
        "Every day, {A.name} had the same lunch: {l1}.",
        "{A.Name} opened {A.his} lunch box and sighed. It was {l1} again.",
        "\"Not {l1} again,\" grumbled {A.name} at lunchtime.",
    )
    s.add(
        "Across the table, {B.name} had {l2}.",
        "{B.Name} sat down with {l2}, and it smelled amazing.",
    )
    s.add(
        "\"Want to swap?\" asked {B.name}.",
        "\"I'll trade you,\" whispered {B.name}, sliding {B.his} lunch across.",
        "\"Yours looks good,\" said {B.name}. \"Swap?\"",
    )
    if s.chance(0.55):
        s.add("So they swapped.", "{A.Name} said yes right away.")
        s.add(
            "{A.Name} took a big bite of {l2} and smiled.",
            "The new lunch was strange and wonderful.",
        )
        s.add(
            "{B.Name} tried {l1} and said, \"Your lunch is the best!\"",
            "\"This is delicious,\" said {B.name} with {B.his} mouth full.",
        )
        s.add(
            "{A.Name} had never thought {A.his} boring lunch was special.",
            "It turned out {A.name}'s boring lunch wasn't boring to everyone.",
        )
    else:
        s.add(
            "{A.Name} remembered that {B.name} couldn't eat some things, so {A.he} asked first.",
            "\"Wait, are you allowed to eat mine?\" asked {A.name}.",
        )
        s.add(
            "\"Oh no, I'm not,\" said {B.name}. \"Good thinking.\"",
            "{B.Name} checked and shook {B.his} head. \"Better not.\"",
        )
        s.add(
            "So they each gave the other just one bite of the safe part.",
            "Instead, they swapped stories about their favorite foods.",
        )
    s.add(
        "The next day, {A.name} asked for a little extra in {A.his} lunch box, just in case.",
        "After that, lunch was the most interesting part of the day.",
    )
    _close(s, A, [
        "And from then on, Friday was swap day.",
        "\"Same time tomorrow?\" laughed {B.name}.",
    ], "{A.Name} learned that trying something new can be tasty.")


def plot_science_project(s: Story) -> None:
    A = s.kid()
    B = _pal(s)
    T = _grownup(s, "teacher", TEACHER_NAMES)
    proj, should, wrong = s.pick(PROJECTS)
    s.ctx.update(A=A, B=B, T=T, proj=proj, should=should, wrong=wrong, time=s.pick(TOWN_TIMES))
    s.add(
        "The science fair was coming, and {A.name} and {B.name} were partners.",
        "{time}, {T.name} told the class to make science projects, and {A.name} teamed up with {B.name}.",
        "{A.Name} and {B.name} wanted to win a ribbon at the science fair.",
    )
    s.add(
        "They decided to build {proj}.",
        "\"Let's make {proj},\" said {A.name}.",
        "After a lot of arguing, they chose {proj}.",
    )
    s.add(
        "It was supposed to {should}.",
        "\"It's going to {should},\" explained {B.name}.",
    )
    s.add(
        "They worked on it every afternoon, with tape, string and lots of notes.",
        "They measured, glued, tested and wrote everything down in a notebook.",
    )
    s.add(
        "But on the day of the fair, {wrong}.",
        "Then, right in front of the judges, {wrong}.",
    )
    s.add("{A.Name}'s face went red.", "\"Oh no,\" whispered {B.name}.")
    if s.chance(0.5):
        s.add(
            "\"Let's tell them what went wrong and why,\" said {A.name}.",
            "{A.Name} took a breath and explained what they thought had happened.",
        )
        s.add(
            "\"That is real science,\" said the judge, nodding.",
            "\"Scientists learn the most from mistakes,\" said {T.name}.",
        )
        s.add(
            "They got a ribbon for Best Thinking.",
            "They didn't win first prize, but they got a shiny ribbon for trying again.",
        )
    else:
        s.add(
            "They fixed it fast with a bit of tape and tried again.",
            "{B.Name} found the problem, and {A.name} fixed it.",
        )
        s.add(
            "The second time, it worked.",
            "This time it did just what it was supposed to do, and the judges clapped.",
        )
    _close(s, A, [
        "{A.Name} and {B.name} were already planning next year's project on the walk home.",
        "\"Next year, something even bigger,\" said {A.name}.",
    ], "{A.Name} learned that a mistake is just the start of a discovery.")


def plot_recess_game(s: Story) -> None:
    A = s.kid()
    B = _pal(s)
    C = _pal(s)
    game = s.pick(RECESS_GAMES)
    s.ctx.update(A=A, B=B, C=C, game=game)
    s.add(
        "The bell rang, and everyone raced out for recess.",
        "At recess, the playground was loud and full of running feet.",
        "When recess came, {A.name} was the first one out the door.",
    )
    s.add(
        "{A.Name} wanted to play {game}.",
        "\"Who wants to play {game}?\" shouted {A.name}.",
    )
    s.add(
        "{B.Name} wanted to play something else, and soon they were arguing.",
        "\"No, let's play tag,\" said {B.name}, folding {B.his} arms.",
        "{B.Name} said {game} was boring, and {A.name} said it wasn't.",
    )
    s.add(
        "Recess was ticking away while they argued.",
        "Nobody was playing anything at all.",
    )
    if s.chance(0.5):
        s.add(
            "Then {C.name} had an idea. \"Let's play both. {game_c} first, then tag.\"",
            "\"Why not play half and half?\" asked {C.name}.",
            game_c=_cap(game),
        )
        s.add("Everyone agreed.", "That seemed fair to everybody.")
    else:
        s.add(
            "{A.Name} looked at the clock and said, \"Okay, your game first.\"",
            "\"Fine, we'll play yours,\" said {A.name}. \"It's better than nothing.\"",
        )
        s.add(
            "{B.Name} was so surprised that {B.he} said, \"Then yours next time.\"",
            "The game was more fun than {A.name} expected.",
        )
    s.add(
        "They ran and shouted until their cheeks were pink.",
        "Soon they were all laughing and out of breath.",
    )
    s.add(
        "When the bell rang, nobody wanted to go in.",
        "\"Already?\" groaned {B.name} when the bell rang.",
    )
    _close(s, A, [
        "The next day, they started playing before anyone could argue.",
        "\"Tomorrow, {game}!\" called {B.name} as they lined up.",
    ], "{A.Name} learned that taking turns means everybody gets to play.")


def plot_substitute(s: Story) -> None:
    A = s.kid()
    T = _grownup(s, "teacher", TEACHER_NAMES)
    S = _grownup(s, "substitute teacher", SUB_NAMES)
    B = _pal(s)
    s.ctx.update(A=A, T=T, S=S, B=B)
    s.add(
        "When {A.name} walked into class, {T.name} wasn't there.",
        "On Wednesday, {A.name} found a stranger sitting at {T.name}'s desk.",
        "\"Where's {T.name}?\" whispered {A.name} as {A.he} hung up {A.his} coat.",
    )
    s.add(
        "\"I'm {S.name},\" said the stranger. \"I'll be your teacher today.\"",
        "A tall person with round glasses said, \"Good morning, I'm {S.name}.\"",
    )
    s.add(
        "{B.Name} leaned over and whispered, \"Let's tell {S.him} we get extra recess.\"",
        "Some of the kids giggled, and {B.name} whispered a plan to play tricks.",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} shook {A.his} head. \"That's not fair to {S.him}.\"",
            "\"That's not true, and you know it,\" {A.name} whispered back.",
        )
        s.add(
            "Instead, {A.name} showed {S.name} where the chalk and the name list were.",
            "{A.Name} put up {A.his} hand and told {S.name} how the morning usually went.",
        )
        s.add(
            "\"Thank you,\" said {S.name}. \"You made my day much easier.\"",
            "{S.Name} smiled a very relieved smile.",
        )
    else:
        s.add(
            "{B.Name} tried it, but {S.name} only laughed.",
            "\"Nice try,\" said {S.name} with a wink.",
        )
        s.add(
            "\"I was a kid once too, you know,\" {S.he} said.",
            "{S.Name} knew every trick in the book.",
        )
    s.add(
        "Then {S.name} taught them a game about maps and mountains.",
        "In the afternoon, {S.name} played the ukulele and taught them a silly song.",
        "{S.Name} told them a story about a ship in a storm, and nobody moved a muscle.",
    )
    s.add(
        "The day went by much too fast.",
        "\"Will you come back?\" asked {A.name} at the end of the day.",
    )
    _close(s, A, [
        "The next morning {T.name} was back, and {A.name} told {T.him} all about {S.name}.",
        "\"Substitutes are the best,\" {A.name} told {A.his} family at dinner.",
    ], "{A.Name} learned that new people deserve a fair chance.")


# ---------------------------------------------------------------------------
# Play and games
# ---------------------------------------------------------------------------


def plot_losing_well(s: Story) -> None:
    A = s.kid()
    B = s.parent(A) if s.chance(0.4) else _pal(s)
    game = s.pick(BOARD_GAMES)
    s.ctx.update(A=A, B=B, game=game)
    s.add(
        "On a rainy afternoon, {A.name} and {B.name} played {game}.",
        "{A.Name} loved {game}, but {A.he} loved winning even more.",
        "\"Let's play {game},\" said {A.name}, setting up the board.",
    )
    s.add(
        "{A.Name} was winning at first.",
        "At the start, {A.name} was far ahead.",
    )
    s.add(
        "Then {B.name} had a lucky turn, and another, and another.",
        "But slowly {B.name} caught up.",
    )
    s.add(
        "{B.Name} reached the end first and won the whole game.",
        "In the end, {B.name} won by just one move.",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} wanted to knock the board over. {A.His} hands were shaking.",
            "{A.Name}'s face went hot, and {A.he} pushed the pieces away.",
        )
        s.add(
            "\"It's not fair!\" {A.he} shouted.",
            "\"I don't want to play anymore,\" {A.name} grumbled.",
        )
        s.add(
            "{B.Name} looked sad, and the game wasn't fun anymore.",
            "Nobody said anything for a long, quiet minute.",
        )
        s.add(
            "Then {A.name} took a big breath and said, \"Sorry. Good game.\"",
            "After a while, {A.name} held out {A.his} hand. \"Good game,\" {A.he} mumbled.",
        )
    else:
        s.add(
            "{A.Name} felt a little grumpy, but {A.he} took a big breath.",
            "{A.Name} wanted to sulk, but {A.he} remembered how it felt when someone else sulked.",
        )
        s.add(
            "\"Good game,\" said {A.name}, and {A.he} shook {B.name}'s hand.",
            "\"You played really well,\" {A.name} said, and {A.he} meant it.",
        )
    s.add(
        "\"Want to play again?\" asked {B.name}, smiling.",
        "{B.Name} grinned. \"Rematch?\"",
    )
    _close(s, A, [
        "They played three more games, and {A.name} didn't even keep count.",
        "The second game was even more fun, and nobody minded who won.",
    ], "{A.Name} learned that a game is for fun, not just for winning.")


def plot_lemonade_stand(s: Story) -> None:
    A = s.kid()
    B = _pal(s)
    P = s.parent(A)
    price = s.pick(["ten cents", "a quarter", "fifty cents", "one dollar"])
    goal = s.pick(["a new soccer ball", "a present for {A.his} mom", "the animal shelter",
                   "a kite with a long tail", "seeds for the school garden"])
    s.ctx.update(A=A, B=B, P=P, price=price, goal=s.fill(goal, A=A))
    s.add(
        "It was the hottest day of the summer.",
        "The sun was blazing, and the street was quiet and sleepy.",
        "{A.Name} and {B.name} wanted to raise money for {goal}.",
    )
    s.add(
        "\"Let's have a lemonade stand!\" {A.name} said to {B.name}.",
        "{A.Name} and {B.name} decided to sell lemonade.",
    )
    s.add(
        "They squeezed lemons, stirred in sugar and added lots of ice.",
        "{P.Name} helped them squeeze the lemons and carry the big jug outside.",
    )
    s.add(
        "They painted a sign that said LEMONADE {price_up}.",
        "{B.Name} made a sign with a big yellow lemon and the price: {price}.",
        price_up=price.upper(),
    )
    s.add(
        "For a long time, nobody came.",
        "They waited and waited, but the street stayed empty.",
    )
    if s.chance(0.5):
        s.add(
            "Then a mail carrier walked by, wiping {his} forehead.",
            "Then a whole soccer team jogged past, red-faced and thirsty.",
            his=s.pick(["his", "her"]),
        )
        s.add(
            "\"Lemonade!\" someone shouted, and suddenly there was a line.",
            "After that, people kept coming and coming.",
        )
        s.add(
            "By the afternoon, the jug was empty and the jar was full of coins.",
            "They sold every last cup.",
        )
    else:
        s.add(
            "{A.Name} tasted the lemonade and made a face. \"Too sour!\"",
            "{B.Name} took a sip and coughed. \"We forgot the sugar!\"",
        )
        s.add(
            "They ran inside, fixed it and hurried back out.",
            "They added sugar, stirred and tasted again, and this time it was perfect.",
        )
        s.add(
            "Soon a neighbor stopped, then another, and the coins began to clink.",
            "The first customer said it was the best lemonade in town.",
        )
    s.add(
        "They counted the money on the front steps.",
        "\"We did it!\" laughed {B.name}, shaking the jar.",
    )
    _close(s, A, [
        "They had just enough for {goal}, and a little left over for two more lemons.",
        "The next morning, they took the jar to buy {goal}.",
    ], "{A.Name} learned that hard work and a good friend make a great team.")


def plot_puppet_show(s: Story) -> None:
    A = s.kid()
    B = _pal(s) if s.chance(0.6) else Who(s._fresh(GIRL_NAMES), "she", "little sister")
    pup1, pup2 = s.rng.sample(PUPPETS, 2)
    s.ctx.update(A=A, B=B, pup1=pup1, pup2=pup2)
    s.add(
        "{A.Name} wanted to put on a puppet show.",
        "\"Let's make a puppet show!\" {A.name} said one rainy Saturday.",
        "{A.Name} had a box of old socks, buttons and felt, and a big idea.",
    )
    s.add(
        "{A.He} made {pup1}, and {B.name} made {pup2}.",
        "By lunchtime, {A.name} had made {pup1}, and {B.name} had made {pup2}.",
    )
    s.add(
        "They turned a cardboard box into a stage and hung a towel for a curtain.",
        "The kitchen table, with a blanket over it, became the theater.",
    )
    s.add(
        "They lined up chairs and invited the whole family.",
        "They made tickets out of paper and handed them to everyone in the house.",
    )
    if s.chance(0.5):
        s.add(
            "In the middle of the show, the curtain fell down.",
            "Halfway through, {pup1}'s head fell off.".replace("{pup1}", "the first puppet"),
        )
        s.add(
            "Everyone gasped. Then {A.name} made the puppet say, \"Oops! Clumsy me!\"",
            "\"That's part of the show,\" {A.name} said quickly, in a squeaky puppet voice.",
        )
        s.add(
            "The audience laughed so hard that Grandpa had to wipe his eyes.",
            "Everyone laughed, and it was the best part of the whole show.",
        )
    else:
        s.add(
            "The puppets sang, argued, chased each other and made up in the end.",
            "The puppets told a story about a lost crown and a very hungry moon.",
        )
        s.add(
            "\"Encore!\" shouted the audience.",
            "Everyone clapped and cheered for more.",
        )
    s.add(
        "{A.Name} and {B.name} took a bow behind the curtain.",
        "At the end, the puppets bowed, and so did {A.name} and {B.name}.",
    )
    _close(s, A, [
        "The puppets lived in a shoebox after that, waiting for the next show.",
        "\"Same time next week?\" whispered {B.name}.",
    ], "{A.Name} learned that a show doesn't need to be perfect to be wonderful.")


def plot_friend_map(s: Story) -> None:
    A = s.kid()
    B = _pal(s)
    m1, m2, m3 = s.rng.sample(MAP_MARKS, 3)
    s.ctx.update(A=A, B=B, m1=m1, m2=m2, m3=m3, treasure=s.pick(TREASURES))
    s.add(
        "{A.Name} found a folded paper under {A.his} door.",
        "There was a note in {A.name}'s mailbox, with a big X drawn on it.",
        "{B.Name} handed {A.name} a crinkled map and ran away giggling.",
    )
    s.add(
        "It was a treasure map, and it was signed by {B.name}.",
        "\"Follow the map,\" it said. \"Love, {B.name}.\"",
    )
    s.add(
        "The first clue said to start at {m1}.",
        "An arrow pointed from {A.name}'s house to {m1}.",
    )
    s.add(
        "From {m1}, {A.he} counted ten steps and turned toward {m2}.",
        "At {m1}, there was a second note: \"Now go to {m2}.\"",
    )
    if s.chance(0.5):
        s.add(
            "But the map was smudged, and {A.name} couldn't read the last part.",
            "A gust of wind tore the corner off the map.",
        )
        s.add(
            "{A.Name} looked around, puzzled, and then {A.he} saw footprints leading to {m3}.",
            "{A.Name} thought hard about where {B.name} liked to hide things, and guessed {m3}.",
        )
    else:
        s.add(
            "At {m2}, a chalk arrow pointed to {m3}.",
            "The map said the treasure was waiting by {m3}.",
        )
    s.add(
        "There, in a little box, {A.name} found {treasure}.",
        "Hidden at {m3}, {A.he} found {treasure}.",
    )
    s.add(
        "\"Surprise!\" shouted {B.name}, jumping out from behind a bush.",
        "{B.Name} popped out and laughed. \"You found it!\"",
    )
    s.add(
        "\"Now it's my turn to make you a map,\" said {A.name}.",
        "{A.Name} hugged {B.name} and asked, \"How long did this take you?\"",
    )
    _close(s, A, [
        "The next week, {B.name} found a map under {B.his} own door.",
        "{A.Name} kept the map in {A.his} drawer for years.",
    ], "{A.Name} learned that the best treasure is a friend who thinks of you.")


def plot_paper_boats(s: Story) -> None:
    A = s.kid()
    B = _pal(s)
    paper = s.pick(BOAT_STUFF)
    s.ctx.update(A=A, B=B, paper=paper, col=s.pick(["green", "purple", "orange", "blue"]))
    s.add(
        "After the storm, the gutter by the curb was running like a little river.",
        "It had rained all night, and the street was full of rushing water.",
        "The rain had stopped, and a stream was gurgling down the side of the road.",
    )
    s.add(
        "\"Boat race!\" shouted {A.name}.",
        "{A.Name} and {B.name} decided to have a paper boat race.",
    )
    s.add(
        "{A.Name} folded a boat from {paper}.",
        "{A.Name}'s boat was made of {paper}, folded very carefully.",
    )
    s.add(
        "{B.Name} colored {B.his} boat {col} and named it the Speedy.",
        "{B.Name}'s boat had a {col} sail made from a straw and a leaf.",
    )
    s.add(
        "\"Ready, set, go!\" they shouted, and dropped the boats in together.",
        "On the count of three, they let go.",
    )
    s.add(
        "The boats spun and bobbed down the stream while the two of them ran alongside.",
        "They raced along the sidewalk, cheering their boats on.",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name}'s boat got stuck on a twig and began to tip over.",
            "Halfway down, {A.name}'s boat tangled in some leaves.",
        )
        s.add(
            "{B.Name} stopped and freed it with a stick, even though {B.his} own boat was winning.",
            "\"Hold on!\" said {B.name}, and {B.he} poked it loose.",
        )
        s.add(
            "The two boats floated over the finish line side by side.",
            "They called it a tie, and that felt just right.",
        )
    else:
        s.add(
            "{A.Name}'s boat zoomed ahead and won by a nose.",
            "{B.Name}'s boat took the lead, but {A.name}'s caught up at the very end.",
        )
        s.add(
            "\"Best of three?\" asked {B.name}, already folding another.",
            "\"Again!\" laughed {B.name}.",
        )
    _close(s, A, [
        "They raced boats until the stream dried up and their socks were soaked.",
        "From then on, {A.name} secretly hoped for rain every weekend.",
    ], "{A.Name} learned that helping a friend is better than winning alone.")


def plot_chalk_rain(s: Story) -> None:
    A = s.kid()
    P = s.parent(A)
    pic = s.pick(CHALK_PICTURES)
    s.ctx.update(A=A, P=P, pic=pic, time=s.pick(TOWN_TIMES))
    s.add(
        "{time}, {A.name} took a bucket of chalk out to the driveway.",
        "{A.Name} spent the whole morning drawing with chalk on the sidewalk.",
        "With a fat piece of pink chalk, {A.name} began to draw.",
    )
    s.add(
        "{A.He} drew {pic}.",
        "Bit by bit, {pic} appeared on the ground.",
    )
    s.add(
        "It was the biggest drawing {A.he} had ever made.",
        "People walking by stopped to look and smile.",
        "\"That's amazing,\" said the neighbor over the fence.",
    )
    s.add(
        "Then dark clouds rolled in, and big drops began to fall.",
        "That afternoon, it began to pour.",
    )
    s.add(
        "{A.Name} watched from the window as the colors ran and melted away.",
        "The rain washed the drawing into a blurry puddle of color.",
    )
    s.add(
        "\"It's gone,\" sniffed {A.name}.",
        "{A.Name} pressed {A.his} forehead to the glass and felt like crying.",
    )
    if s.chance(0.5):
        s.add(
            "\"Rain gives you a brand new page,\" said {P.name}.",
            "{P.Name} sat beside {A.him}. \"Now you get to draw something new.\"",
        )
        s.add(
            "When the sun came out, the driveway was clean and dark and waiting.",
            "The next morning, the ground was wet and clean.",
        )
        s.add(
            "{A.Name} drew something even bigger.",
            "This time, {A.he} drew a dragon and a rainbow, side by side.",
        )
    else:
        s.add(
            "But {P.name} had taken a photo of it before the rain came.",
            "Then {P.name} showed {A.him} the picture {P.he} had taken that morning.",
        )
        s.add(
            "\"It's still here,\" said {P.name}, holding up the phone.",
            "They printed it out and put it on the fridge.",
        )
    _close(s, A, [
        "Chalk drawings don't last forever, and {A.name} decided that was part of the fun.",
        "{A.Name} went to bed thinking about what {A.he} would draw tomorrow.",
    ], "{A.Name} learned that you can always make something new.")


# ---------------------------------------------------------------------------
# The town and its people
# ---------------------------------------------------------------------------


def plot_post_office(s: Story) -> None:
    A = s.kid()
    P = s.parent(A)
    C = _grownup(s, "postal clerk", _words("Miss_Parcel Mister_Stamp Miss_Wren Mister_Abe"))
    thing, who, where = s.pick(POST_THINGS)
    s.ctx.update(A=A, P=P, C=C, thing=thing, who=s.fill(who, A=A), where=where,
                 stamp=s.pick(STAMPS), town=_town(s))
    s.add(
        "{A.Name} had made {thing} for {who}, who lived {where}.",
        "In the little town of {town}, {A.name} had {thing} to send to {who}.",
    )
    s.add(
        "{A.He} and {P.name} walked to the post office.",
        "\"Let's mail it today,\" said {P.name}, and they set off for the post office.",
    )
    s.add(
        "Inside, there was a long counter, a scale and rows of little boxes on the wall.",
        "The post office smelled like paper and glue, and a bell dinged when they opened the door.",
    )
    s.add(
        "\"Good morning, what can I do for you?\" asked {C.name}, the clerk.",
        "{C.Name} smiled over the counter. \"Sending something special?\"",
    )
    s.add(
        "{A.Name} chose {stamp}.",
        "{C.Name} let {A.name} pick a stamp, and {A.he} chose {stamp}.",
    )
    if s.chance(0.5):
        s.add(
            "But {A.name} had forgotten to write the address!",
            "\"Hmm, there's no address on this,\" said {C.name}.",
        )
        s.add(
            "{P.Name} knew it by heart, and {A.name} wrote it in {A.his} best letters.",
            "{A.Name} wrote the address very slowly, one careful letter at a time.",
        )
    else:
        s.add(
            "{C.Name} weighed it on the scale. \"Just right,\" {C.he} said.",
            "\"Light as a feather,\" said {C.name}, reading the scale.",
        )
    s.add(
        "Then {A.name} pushed it through the brass slot, and it was gone.",
        "{C.Name} stamped it with a loud thump and dropped it in a big canvas bag.",
    )
    s.add(
        "\"When will it get there?\" asked {A.name}.",
        "\"Where does it go now?\" {A.name} wondered out loud.",
    )
    s.add(
        "\"In a few days,\" said {C.name}, \"and it'll ride in trucks and maybe even a plane.\"",
        "\"On a long journey,\" {C.name} said, and {C.he} winked.",
    )
    _close(s, A, [
        "A week later, a letter came back addressed to {A.name}.",
        "Every day after that, {A.name} checked the mailbox for a reply.",
    ])


def plot_fire_truck(s: Story) -> None:
    A = s.kid()
    F = _grownup(s, "firefighter", _words("Captain_Rosa Mister_Blaze Miss_Harlow Mister_Duke Miss_Kerry"))
    if F.name.startswith("Captain"):
        F = Who(F.name, "she", "firefighter")
    thing = s.pick(FIRE_THINGS)
    s.ctx.update(A=A, F=F, thing=thing)
    s.add(
        "A bright red fire truck rolled into the school yard.",
        "One morning, {A.name}'s class went to visit the fire station.",
        "A fire truck came to visit {A.name}'s street, with its lights flashing.",
    )
    s.add(
        "A firefighter named {F.name} climbed down and waved.",
        "{F.Name} the firefighter said, \"Who wants to see inside?\"",
    )
    s.add(
        "{A.Name} liked {thing} best.",
        "{F.Name} showed them {thing}.",
    )
    s.add(
        "Then {F.name} put on {F.his} whole suit, the mask and all.",
        "\"This is what I wear at a fire,\" said {F.name}, putting on a big mask.",
    )
    s.add(
        "In the mask, {F.he} sounded like a robot, and some kids stepped back.",
        "With the mask on, {F.name} looked a little scary, and {A.name} hid behind a friend.",
    )
    s.add(
        "\"It's still me,\" said {F.name}, and {F.he} waved. \"Never hide from a firefighter.\"",
        "\"Don't be scared,\" said {F.name}. \"If you see me like this, I'm there to help.\"",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} took a breath and gave {F.him} a high five.",
            "{A.Name} walked right up and shook {F.name}'s big glove.",
        )
    else:
        s.add(
            "{F.Name} let {A.name} sit in the driver's seat and ring the bell.",
            "{A.Name} got to sit in the cab and press the horn. HONK!",
        )
    s.add(
        "Before they left, {F.name} taught them: stop, drop and roll.",
        "\"Remember,\" said {F.name}, \"get out, stay out, and call for help.\"",
    )
    _close(s, A, [
        "That night, {A.name} told {A.his} family the fire safety rules, twice.",
        "{A.Name} decided {A.he} would be a firefighter one day.",
    ])


def plot_market_day(s: Story) -> None:
    A = s.kid()
    P = s.parent(A)
    st1, st2 = s.rng.sample(MARKET_STALLS, 2)
    s.ctx.update(A=A, P=P, s1=st1[0], w1=st1[1], g1=st1[2], s2=st2[0], w2=st2[1], g2=st2[2],
                 town=_town(s))
    s.add(
        "Every Saturday, the square in {town} turned into a market.",
        "{A.Name} went to the market with {P.name}, holding a woven basket.",
        "On market day, {A.name} woke up before the alarm.",
    )
    s.add(
        "There were stalls with striped roofs as far as {A.name} could see.",
        "People were calling out prices, and music was playing on a corner.",
    )
    s.add(
        "At {s1}, there were {w1}.",
        "First they stopped at {s1}, which had {w1}.",
    )
    s.add(
        "{A.Name} got {g1}.",
        "The seller gave {A.name} {g1} and a wink.",
    )
    s.add(
        "Next came {s2}, with {w2}.",
        "Then they passed {s2}, piled with {w2}.",
    )
    if s.chance(0.5):
        s.add(
            "In the crowd, {A.name} let go of {P.name}'s hand, and suddenly {A.he} couldn't see {P.him}.",
            "When {A.name} turned around, {P.name} was gone.",
        )
        s.add(
            "{A.He} remembered what to do: stay still and ask a seller for help.",
            "{A.Name} stood by the nearest stall and told the seller, \"I can't find my family.\"",
        )
        s.add(
            "The seller called out loudly, and {P.name} came hurrying back.",
            "In a moment, {P.name} came running and scooped {A.him} up.",
        )
    else:
        s.add(
            "{A.Name} counted the coins and paid all by {A.himself}.",
            "\"Can I pay?\" asked {A.name}, and {P.name} handed {A.him} the coins.",
        )
        s.add(
            "\"Thank you, young customer,\" said the seller with a bow.",
            "The seller gave {A.him} the change and a small extra treat.",
        )
    s.add(
        "They walked home with a heavy basket and happy feet.",
        "On the way home, the basket smelled like fruit and flowers.",
    )
    _close(s, A, [
        "\"Next Saturday again?\" asked {A.name}, and {P.name} laughed, \"Of course.\"",
        "Market day was {A.name}'s favorite day of the week.",
    ])


def plot_street_festival(s: Story) -> None:
    A = s.kid()
    B = _pal(s)
    f1, f2 = s.rng.sample(FESTIVAL_THINGS, 2)
    s.ctx.update(A=A, B=B, f1=f1, f2=f2, town=_town(s))
    s.add(
        "Once a year, the main street of {town} closed for the festival.",
        "The street festival was finally here!",
        "Music floated through {A.name}'s window, and {A.he} knew the festival had begun.",
    )
    s.add(
        "{A.Name} went with {B.name}, and there were {f1} and {f2}.",
        "{A.Name} and {B.name} saw {f1}, and then {f2}.",
    )
    s.add(
        "The air smelled like popcorn and roasted corn.",
        "Everywhere, people were dancing, laughing and eating.",
    )
    s.add(
        "At the face painting stall, {A.name} became a tiger and {B.name} became a butterfly.",
        "{A.Name} got {A.his} face painted like a silver star.",
    )
    if s.chance(0.5):
        s.add(
            "Then the parade started, and a giant drum went BOOM right beside them.",
            "Then the fireworks began, and they were very, very loud.",
        )
        s.add(
            "{B.Name} covered {B.his} ears and looked scared.",
            "{B.Name} grabbed {A.name}'s sleeve, trembling.",
        )
        s.add(
            "\"Let's watch from the steps,\" said {A.name}, leading {B.him} somewhere quieter.",
            "{A.Name} held {B.his} hand and found a calm spot by the fountain.",
        )
        s.add(
            "From there, the noise was softer and the lights were even prettier.",
            "\"Thanks,\" whispered {B.name}. \"It's beautiful from here.\"",
        )
    else:
        s.add(
            "A juggler pulled {A.name} into the crowd and handed {A.him} a scarf to wave.",
            "The band played a song, and everyone joined in a big circle dance.",
        )
        s.add(
            "{A.Name} and {B.name} danced until they were dizzy.",
            "They spun and clapped and laughed until they had to sit down.",
        )
    s.add(
        "At the end of the night, lanterns glowed up and down the street.",
        "When it got dark, the strings of lights came on all at once.",
    )
    _close(s, A, [
        "\"Only three hundred and sixty-four days until the next one,\" sighed {B.name}.",
        "{A.Name} fell asleep with face paint still on {A.his} cheeks.",
    ])


def plot_new_playground(s: Story) -> None:
    A = s.kid()
    B = _pal(s)
    thing = s.pick(PLAYGROUND_THINGS)
    s.ctx.update(A=A, B=B, thing=thing)
    s.add(
        "For weeks, there had been a fence around the empty lot by {A.name}'s school.",
        "Behind a tall fence near {A.name}'s house, workers had been building something for a long time.",
        "Every day, {A.name} peeked through the fence where the old lot used to be.",
    )
    s.add(
        "Finally, the fence came down, and there was a brand new playground.",
        "One morning, the sign said OPEN, and the new playground was ready.",
    )
    s.add(
        "It had {thing}!",
        "The best part was {thing}.",
    )
    s.add(
        "Everybody rushed in at once, and there was a long line.",
        "{A.Name} ran straight for it, but so did everyone else.",
    )
    if s.chance(0.5):
        s.add(
            "A small kid at the back of the line looked like {he} might give up.",
            "A younger kid kept getting pushed to the back.",
            he=s.pick(["he", "she"]),
        )
        s.add(
            "\"You can go ahead of me,\" said {A.name}.",
            "{A.Name} stepped aside and said, \"Your turn first.\"",
        )
        s.add(
            "The little kid's smile was as wide as the slide.",
            "\"Thank you!\" squeaked the little kid.",
        )
    else:
        s.add(
            "{A.Name} and {B.name} waited, counting the turns together.",
            "While they waited, they played I spy with the clouds.",
        )
        s.add(
            "When it was finally their turn, it was worth every minute.",
            "At last it was their turn, and it was even better than they'd imagined.",
        )
    s.add(
        "\"Again!\" shouted {B.name}.",
        "They went again and again until their legs were wobbly.",
    )
    _close(s, A, [
        "The new playground became everybody's favorite place in town.",
        "\"See you at the playground!\" became the way {A.name} and {B.name} said goodbye.",
    ], "{A.Name} learned that waiting your turn makes the fun fair for everyone.")


def plot_barber(s: Story) -> None:
    A = s.kid()
    P = s.parent(A)
    Bb = _grownup(s, "barber", _words("Mister_Sal Mister_Otto Miss_Tilly Mister_Vic Miss_Dee"))
    s.ctx.update(A=A, P=P, Bb=Bb, cut=s.pick(HAIRCUTS), jit=s.pick(SHY_WORDS))
    s.add(
        "{A.Name}'s hair was falling over {A.his} eyes.",
        "\"Time for a haircut,\" said {P.name}, brushing {A.name}'s hair out of {A.his} eyes.",
        "{A.Name} had never been to the barber shop on Main Street before.",
    )
    s.add(
        "The barber shop had a striped pole outside that turned round and round.",
        "The shop had a red and white pole, big mirrors and a chair that went up and down.",
    )
    s.add(
        "\"Hop up,\" said {Bb.name}, the barber, pumping the chair higher.",
        "{Bb.Name} put a cape around {A.name}'s shoulders like a superhero.",
    )
    s.add(
        "\"What'll it be today?\" asked {Bb.name}.",
        "\"So, what kind of haircut?\" {Bb.name} asked.",
    )
    s.add(
        "\"{cut_c}, please,\" said {A.name} in a small voice.",
        "{P.Name} asked for {cut}.",
        cut_c=_cap(s.ctx["cut"]),
    )
    s.add(
        "The scissors went snip, snip, snip beside {A.his} ear, and {A.name} felt {jit}.",
        "The clippers buzzed like a bee, and {A.name} squeezed {A.his} eyes shut.",
    )
    if s.chance(0.5):
        s.add(
            "{Bb.Name} told jokes the whole time, and soon {A.name} was giggling.",
            "\"Why did the comb go to school?\" asked {Bb.name}. \"To get a little sharper!\"",
        )
    else:
        s.add(
            "\"Hold very still,\" said {Bb.name}, \"like a statue.\"",
            "{A.Name} pretended to be a statue, and it wasn't scary at all.",
        )
    s.add(
        "Then {Bb.name} spun the chair around to face the mirror.",
        "When it was done, {Bb.name} held up a hand mirror.",
    )
    s.add(
        "\"Is that me?\" laughed {A.name}.",
        "{A.Name} couldn't stop smiling at {A.his} reflection.",
    )
    _close(s, A, [
        "{Bb.Name} gave {A.him} a lollipop, and {A.name} walked out feeling brand new.",
        "All the way home, {A.name} kept touching {A.his} neat new hair.",
    ])


def plot_bakery_first(s: Story) -> None:
    A = s.kid()
    Bk = _grownup(s, "baker", _words("Miss_Honey Mister_Loaf Miss_Sugar Mister_Rye Miss_Pearl"))
    good = s.pick(BAKERY_GOODS)
    s.ctx.update(A=A, Bk=Bk, good=good, town=_town(s), time=s.pick(TOWN_TIMES))
    s.add(
        "A new bakery was opening on the corner of {A.name}'s street.",
        "{time}, a sign appeared in the window: GRAND OPENING TOMORROW.",
        "In {town}, there had never been a bakery, until now.",
    )
    s.add(
        "The baker was {Bk.name}, and {Bk.he} had been baking since before sunrise.",
        "{Bk.Name} had painted the door yellow and filled the window with bread.",
    )
    s.add(
        "{A.Name} woke up early and ran down with a coin in {A.his} pocket.",
        "{A.Name} wanted to be the very first customer.",
    )
    s.add(
        "When {A.he} pushed the door, a little bell jingled.",
        "{A.Name} opened the door, and warm air that smelled of butter and sugar puffed out.",
    )
    s.add(
        "\"My first customer!\" said {Bk.name}, clapping floury hands.",
        "\"Welcome, welcome!\" said {Bk.name}. \"You're the first one!\"",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} looked at all the shelves and couldn't choose.",
            "There were so many treats that {A.name} didn't know where to look.",
        )
        s.add(
            "\"Try {good},\" said {Bk.name}, and {A.name} did.",
            "{Bk.Name} picked out {good} for {A.him}.",
        )
    else:
        s.add(
            "\"One {good_n}, please,\" said {A.name} proudly.",
            "{A.Name} pointed at {good} and put {A.his} coin on the counter.",
            good_n=good.split(" ", 1)[1],
        )
    s.add(
        "It was still warm.",
        "It was the best thing {A.name} had ever tasted.",
    )
    s.add(
        "{Bk.Name} put the coin in a frame on the wall. \"The first coin is lucky,\" {Bk.he} said.",
        "{Bk.Name} taped {A.name}'s coin above the till and wrote FIRST CUSTOMER under it.",
    )
    _close(s, A, [
        "Every time {A.name} went back, {A.he} looked at the coin on the wall and smiled.",
        "By noon, there was a line out the door, but {A.name} had been first.",
    ])


def plot_lost_dog_poster(s: Story) -> None:
    A = s.kid()
    B = _pal(s)
    dog = s.pick(PET_NAMES)
    look = s.pick(DOG_LOOKS)
    spot = s.pick(DOG_SPOTS)
    s.ctx.update(A=A, B=B, dog=dog, look=look, spot=spot, town=_town(s))
    s.add(
        "On the lamppost outside the library, there was a new poster: LOST DOG.",
        "{A.Name} saw a poster taped to a tree that said LOST DOG in big letters.",
        "Posters were everywhere in {town}: LOST DOG, PLEASE HELP.",
    )
    s.add(
        "The dog's name was {dog}, and it was {look}.",
        "Under a photo of {look}, it said: \"{dog} is missing. Please call.\"",
    )
    s.add(
        "\"We should look for {dog},\" {A.name} said to {B.name}.",
        "{A.Name} and {B.name} decided to become dog detectives.",
    )
    s.add(
        "They checked the park, the school yard and behind the post office.",
        "They walked every street, calling, \"{dog}! Here, {dog}!\"",
    )
    if s.chance(0.5):
        s.add(
            "They were about to give up when they heard a bark.",
            "Just as the sun was going down, {B.name} shouted, \"Look!\"",
        )
        s.add(
            "There was the dog, {spot}.",
            "The dog was {spot}.",
        )
        s.add(
            "{A.Name} knelt down and held out {A.his} hand, and the dog came wagging.",
            "\"Hello, {dog},\" whispered {A.name}, and the dog licked {A.his} fingers.",
        )
    else:
        s.add(
            "They didn't find {dog}, but they asked the baker, the barber and the mail carrier.",
            "They didn't see the dog anywhere, so they told everyone they met.",
        )
        s.add(
            "\"I saw that dog {spot}!\" said the mail carrier the next morning.",
            "Later, a shopkeeper called to say the dog had been seen {spot}.",
        )
        s.add(
            "They ran to the spot, and there {dog} was, wagging {its} tail.",
            "Sure enough, {dog} was there, tired and hungry but safe.",
            its="its",
        )
    s.add(
        "They called the number on the poster.",
        "They carefully read the number on the poster and called it.",
    )
    s.add(
        "The owner ran all the way over and hugged {dog} tight.",
        "The owner cried happy tears and thanked them again and again.",
    )
    _close(s, A, [
        "The next day, a new poster went up: FOUND! THANK YOU, {A_up} AND {B_up}.",
        "{A.Name} and {B.name} took down all the posters, one by one, smiling.",
    ], "{A.Name} learned that small helpers can make a big difference.",
        A_up=A.name.upper(), B_up=B.name.upper())


def plot_bus_birthday(s: Story) -> None:
    A = s.kid()
    D = _grownup(s, "bus driver", _words("Mister_Gil Miss_Bonnie Mister_Hank Miss_Marla Mister_Lou"))
    B = _pal(s)
    gift = s.pick(BUS_GIFTS)
    s.ctx.update(A=A, D=D, B=B, gift=gift)
    s.add(
        "Every morning, {D.name} drove the school bus and said good morning to every kid.",
        "{D.Name} was the friendliest bus driver in town.",
        "{A.Name} liked riding the bus because of {D.name}, the driver.",
    )
    s.add(
        "One day, {A.name} found out it was {D.name}'s birthday.",
        "\"Guess what,\" whispered {B.name}. \"It's {D.name}'s birthday tomorrow!\"",
    )
    s.add(
        "\"Let's surprise {D.him},\" said {A.name}.",
        "{A.Name} had an idea: a surprise, right there on the bus.",
    )
    s.add(
        "That night, {A.name} made {gift}.",
        "{A.Name} and {B.name} worked on {gift} after school.",
    )
    if s.chance(0.5):
        s.add(
            "The next morning, they told every kid on the bus the plan, in whispers.",
            "They passed a note from seat to seat: SING AT THE RED LIGHT.",
        )
        s.add(
            "When the bus stopped at the red light, everyone sang \"Happy Birthday\" at once.",
            "At the first stop, the whole bus burst into song.",
        )
    else:
        s.add(
            "But in the morning, {A.name} almost forgot it on the kitchen table!",
            "In the morning, {A.name} was halfway to the stop when {A.he} remembered the present.",
        )
        s.add(
            "{A.He} ran back, grabbed it and got to the bus just as the doors were closing.",
            "{A.He} raced home and back, and {D.name} waited with the doors open.",
        )
    s.add(
        "{A.Name} gave {D.name} {gift}.",
        "\"For you,\" said {A.name}, holding out {gift}.",
    )
    s.add(
        "{D.Name} was so surprised that {D.he} honked the horn three times.",
        "\"Nobody has ever done this for me,\" said {D.name}, and {D.his} eyes were shiny.",
    )
    _close(s, A, [
        "It was the happiest bus ride anyone could remember.",
        "From then on, the whole bus sang whenever it was someone's birthday.",
    ], "{A.Name} learned that the people who help us every day deserve a thank you.")


# ---------------------------------------------------------------------------
# Vehicles and things that go
# ---------------------------------------------------------------------------


def plot_tow_truck(s: Story) -> None:
    A = s.animal() if s.chance(0.3) else None
    if A is None:
        A = Who(s._fresh(PET_NAMES + ["Tug", "Hook", "Rusty", "Dusty", "Bolt"]),
                s.pick(["he", "she"]), "tow truck", s.pick(["little", "old", "small", "yellow"]))
    else:
        A = Who(A.name, A.he, "tow truck", s.pick(["little", "old", "small", "yellow"]))
    car, the_car, where = s.pick(TOW_STUCK)
    s.ctx.update(A=A, car=car, the_car=the_car, where=where, town=_town(s))
    s.add(
        "In {town}, there was {A.a} named {A.name}.",
        "{A.Name} was {A.a} with a squeaky hook and a big heart.",
        "At the garage at the edge of {town} lived {A.a} called {A.name}.",
    )
    s.add(
        "The shiny new cars zoomed past and said {A.he} {A.was} too slow and rusty.",
        "The other trucks laughed at {A.his} dents and {A.his} squeaky hook.",
    )
    s.add(
        "One stormy night, the phone rang at the garage.",
        "Then one morning, there was an emergency call.",
    )
    s.add(
        "{car_c} was stuck {where}.",
        "\"Help!\" called the radio. \"{car_c} is stuck {where}!\"",
        car_c=_cap(car),
    )
    s.add(
        "{A.Name} rumbled out of the garage as fast as {A.his} old wheels could go.",
        "\"I'm coming!\" beeped {A.name}, and off {A.he} went.",
    )
    s.add(
        "{A.He} lowered {A.his} hook, hooked it on and pulled.",
        "{A.Name} backed up carefully and let down {A.his} long chain.",
    )
    if s.chance(0.5):
        s.add(
            "The first pull did nothing. {A.His} wheels spun in the mud.",
            "It was stuck fast, and {A.name} slipped backward.",
        )
        s.add(
            "\"Slow and steady,\" {A.name} told {A.himself}, and pulled again, gently this time.",
            "{A.Name} took a breath and pulled slowly, inch by inch.",
        )
    s.add(
        "With a loud squelch, {the_car} came free.",
        "Pop! Out came {the_car}, safe and sound.",
    )
    s.add(
        "\"Thank you!\" honked {the_car}.",
        "The shiny new cars were quiet, and then they all honked, \"Hooray for {A.name}!\"",
    )
    _close(s, A, [
        "Nobody ever called {A.name} slow again.",
        "{A.Name} drove home with {A.his} hook swinging proudly.",
    ], "Slow and steady can be the strongest of all.")


def plot_tugboat(s: Story) -> None:
    A = Who(s.pick(["Toot", "Tilly", "Pip", "Bobbin", "Scout", "Nelly", "Chug", "Wiley"]),
            s.pick(["he", "she"]), "tugboat", s.pick(["little", "small", "red", "brave"]))
    ship = s.pick(BIG_SHIPS)
    s.ctx.update(A=A, ship=ship, town=_town(s))
    s.add(
        "In the harbor of {town}, there was {A.a} named {A.name}.",
        "{A.Name} was {A.a} who worked in a busy harbor.",
        "Among all the big boats in the harbor, {A.name} was the smallest.",
    )
    s.add(
        "{A.He} puffed and chugged all day, pushing barges and carrying ropes.",
        "Every day, {A.name} tooted {A.his} horn and helped boats in and out.",
    )
    s.add(
        "One day, {ship} came into the harbor.",
        "One foggy morning, {ship} needed help to reach the dock.",
    )
    s.add(
        "\"You're much too small to help me,\" boomed the ship.",
        "The ship looked down and laughed. \"You? You're no bigger than my anchor!\"",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} felt tiny, but {A.he} didn't give up.",
            "\"Let me try,\" said {A.name} anyway.",
        )
        s.add(
            "{A.He} called the other tugboats, and together they pushed.",
            "{A.Name} whistled, and three more tugboats came chugging over to help.",
        )
        s.add(
            "Side by side, the little boats nudged the great ship safely to the dock.",
            "Bit by bit, the tugboats pushed, and the ship slid gently into place.",
        )
    else:
        s.add(
            "Then the wind began to blow hard, and the big ship started drifting toward the rocks.",
            "Suddenly, the ship's engine coughed and stopped.",
        )
        s.add(
            "{A.Name} raced over, tied a rope to the ship and pulled with all {A.his} might.",
            "{A.Name} puffed and pushed, puffed and pushed, until {A.his} engine was hot.",
        )
        s.add(
            "Slowly, the ship turned away from danger and into the harbor.",
            "The ship moved, just a little, then a little more, and then it was safe.",
        )
    s.add(
        "\"Thank you, little one,\" said the ship, and it blew its great horn.",
        "\"I was wrong about you,\" rumbled the ship.",
    )
    s.add(
        "{A.Name} tooted back, as loud as {A.he} could.",
        "Toot, toot! {A.Name} answered happily.",
    )
    _close(s, A, [
        "After that, the big ships always waved when they saw {A.name}.",
        "{A.Name} was small, but {A.he} had the biggest heart in the harbor.",
    ], "Being small doesn't mean you can't do big things.")


def plot_hot_air_balloon(s: Story) -> None:
    A = s.kid()
    P = s.parent(A)
    pilot = _grownup(s, "balloon pilot", _words("Captain_Skye Miss_Breeze Mister_Cloud Miss_Zephyr"))
    if pilot.name.startswith("Captain"):
        pilot = Who(pilot.name, "he", "balloon pilot")
    sight = s.pick(BALLOON_SIGHTS)
    s.ctx.update(A=A, P=P, pilot=pilot, sight=sight,
                 col=s.pick(["red and yellow", "blue and white", "rainbow-striped", "orange and purple"]))
    s.add(
        "For {A.his} birthday, {A.name} and {P.name} got to ride in a hot air balloon.",
        "Early one morning, {A.name} and {P.name} drove to a wide field where a balloon was waiting.",
        "{A.Name} had always wanted to fly, and today {A.he} would.",
    )
    s.add(
        "The balloon was huge and {col}, and it was slowly filling with hot air.",
        "With a loud WHOOSH, the burner roared, and the {col} balloon stood up tall.",
    )
    s.add(
        "The pilot, {pilot.name}, helped {A.name} into the basket.",
        "\"Climb in,\" said {pilot.name}, the pilot. \"Hold on to the edge.\"",
    )
    s.add(
        "Then, without a bump, the ground fell away.",
        "Slowly and gently, they began to rise.",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} looked down and felt dizzy. {A.He} squeezed {P.name}'s hand.",
            "At first, {A.name} was too scared to look over the side.",
        )
        s.add(
            "\"Look at the horizon, not your feet,\" said {pilot.name}.",
            "\"Just peek,\" said {P.name} softly. \"I've got you.\"",
        )
        s.add(
            "{A.Name} peeked, and {A.his} fear floated away.",
            "So {A.name} peeked, and then {A.he} couldn't stop looking.",
        )
    s.add(
        "Far below, {A.he} could see {sight}.",
        "From up there, {A.name} saw {sight}.",
    )
    s.add(
        "\"Everything looks like toys,\" whispered {A.name}.",
        "\"It's so quiet up here,\" {A.name} said.",
    )
    s.add(
        "When they landed in a field of tall grass, a cow stared at them in surprise.",
        "They landed softly with a bump and a bounce, and everyone laughed.",
    )
    _close(s, A, [
        "{A.Name} drew the view from the sky that night, every tiny road and roof.",
        "{A.Name} still looks up whenever a balloon drifts over town.",
    ])


def plot_late_train(s: Story) -> None:
    A = s.kid()
    P = s.parent(A)
    reason = s.pick(TRAIN_REASONS)
    dest = s.pick(["the seaside", "grandma's town", "the big city", "the mountains", "the zoo"])
    s.ctx.update(A=A, P=P, reason=reason, dest=dest, time=s.pick(TOWN_TIMES))
    s.add(
        "{time}, {A.name} and {P.name} were taking the train to {dest}.",
        "{A.Name} stood on the platform with a ticket in {A.his} hand and a snack in {A.his} bag.",
        "The train to {dest} was supposed to come at nine o'clock.",
    )
    s.add(
        "But nine o'clock came and went, and there was no train.",
        "The big clock ticked, but the tracks stayed empty.",
    )
    s.add(
        "\"The train is late,\" said a voice over the speaker. \"Sorry for the delay.\"",
        "A sign blinked: DELAYED.",
    )
    s.add(
        "{A.Name} stamped {A.his} foot. \"It's not fair!\"",
        "\"How long?\" groaned {A.name}.",
    )
    s.add(
        "The conductor explained that {reason}.",
        "A station worker said that {reason}.",
    )
    if s.chance(0.5):
        s.add(
            "\"Let's play a game while we wait,\" said {P.name}.",
            "{P.Name} pulled a pack of cards from {P.his} pocket.",
        )
        s.add(
            "They counted pigeons, made up stories about the other travelers and played I spy.",
            "They played cards on the bench, and {A.name} won twice.",
        )
    else:
        s.add(
            "{A.Name} sat beside an old man who used to be a train driver.",
            "An old lady on the bench began to tell {A.name} about trains from long ago.",
        )
        s.add(
            "The stories were so good that {A.name} forgot all about waiting.",
            "{A.Name} listened with wide eyes to stories of steam and whistles.",
        )
    s.add(
        "At last, the train came rumbling in with a long whistle.",
        "Then {A.name} heard it: a distant hoot, and the train came around the bend.",
    )
    _close(s, A, [
        "\"That was the best waiting ever,\" said {A.name} as they climbed on.",
        "{A.Name} almost wished the train had been a little later.",
    ], "{A.Name} learned that waiting can be fun if you make it fun.")


# ---------------------------------------------------------------------------
# Sports
# ---------------------------------------------------------------------------


def plot_first_swim(s: Story) -> None:
    A = s.kid()
    C = _grownup(s, "swim coach", _words("Coach_Marina Coach_Brook Coach_Dev Coach_Wells"))
    C = Who(C.name, s.pick(["he", "she"]), "swim coach")
    gear = s.pick(SWIM_THINGS)
    s.ctx.update(A=A, C=C, gear=gear, jit=s.pick(SHY_WORDS))
    s.add(
        "Today was {A.name}'s very first swimming lesson.",
        "{A.Name} stood at the edge of the pool, feeling {jit}.",
        "The pool smelled of chlorine, and the water sparkled blue.",
    )
    s.add(
        "{A.He} had {gear}, but the water still looked very deep.",
        "{A.Name} held on tight to {gear}.",
    )
    s.add(
        "\"Hi, I'm {C.name}, and we'll start slow,\" said the teacher.",
        "{C.Name} smiled from the water. \"Sit on the edge and kick your feet first.\"",
    )
    s.add(
        "{A.Name} kicked and splashed, and it was actually fun.",
        "Splash, splash! {A.Name}'s feet made a little storm.",
    )
    s.add(
        "\"Now blow bubbles like a fish,\" said {C.name}.",
        "Then {C.name} asked {A.him} to put {A.his} face in the water.",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} shook {A.his} head. \"Not today.\"",
            "\"I don't want to,\" whispered {A.name}.",
        )
        s.add(
            "\"That's okay,\" said {C.name}. \"Try just your chin.\"",
            "\"Then just your nose,\" said {C.name} gently.",
        )
        s.add(
            "Chin, then lips, then nose, and finally {A.name} blew a whole face of bubbles.",
            "Little by little, {A.name} went lower, until {A.he} blew bubbles and came up laughing.",
        )
    else:
        s.add(
            "{A.Name} took a huge breath and dunked {A.his} whole face.",
            "{A.Name} squeezed {A.his} eyes shut and blew a big line of bubbles.",
        )
        s.add(
            "{A.He} came up sputtering and grinning.",
            "When {A.he} popped up, {A.he} {A.was} laughing.",
        )
    s.add(
        "\"You're a fish!\" cheered {C.name}.",
        "\"Amazing,\" said {C.name}, and gave {A.him} a high five.",
    )
    _close(s, A, [
        "{A.Name} couldn't wait for the next lesson.",
        "On the way home, {A.name} said {A.he} wanted to swim every single day.",
    ], "{A.Name} learned that big things start with small steps.")


def plot_soccer_match(s: Story) -> None:
    A = s.kid()
    B = _pal(s)
    pos = s.pick(SOCCER_POS)
    s.ctx.update(A=A, B=B, pos=pos,
                 team=s.pick(["the Tigers", "the Comets", "the Hornets", "the Otters", "the Rockets"]),
                 other=s.pick(["the Sharks", "the Thunder", "the Falcons", "the Wolves"]))
    s.add(
        "{A.Name}'s team, {team}, had a big match on Saturday.",
        "It was the last soccer match of the season: {team} against {other}.",
        "{A.Name} laced up {A.his} cleats and pulled on {A.his} jersey.",
    )
    s.add(
        "{A.Name} was the {pos}.",
        "Coach said {A.name} would play {pos}.",
    )
    s.add(
        "The whistle blew, and everyone ran.",
        "At the whistle, the ball went flying.",
    )
    s.add(
        "{other_c} scored first, and {A.name}'s team groaned.",
        "By halftime, {other} were winning one to nothing.",
        other_c=_cap(s.ctx["other"]),
    )
    s.add(
        "\"Pass more,\" said the coach. \"Play together.\"",
        "In the break, they drank water and made a plan.",
    )
    if s.chance(0.5):
        s.add(
            "In the last minute, {A.name} got the ball near the goal.",
            "Near the end, the ball rolled right to {A.name}'s feet.",
        )
        s.add(
            "{A.He} could shoot, but {B.name}, {A.his} teammate, was wide open.",
            "{A.Name} saw {B.name} waving, with nobody near {B.him}.",
        )
        s.add(
            "{A.Name} passed, and {B.name} kicked it into the net!",
            "{A.Name} passed it, and {B.name} scored!",
        )
        s.add(
            "The game ended in a tie, and it felt like a win.",
            "\"Great pass!\" shouted {B.name}, running to hug {A.him}.",
        )
    else:
        s.add(
            "They played hard, but {other} scored again.",
            "{A.Name} ran and ran, but they couldn't get the ball past the goalie.",
        )
        s.add(
            "{team_c} lost, and {A.name} felt a lump in {A.his} throat.",
            "When the final whistle blew, {A.name} sat down on the grass.",
            team_c=_cap(s.ctx["team"]),
        )
        s.add(
            "Then both teams lined up and shook hands. \"Good game, good game.\"",
            "{B.Name} sat next to {A.him}. \"We played our best,\" {B.he} said.",
        )
    s.add(
        "Afterward, they all had orange slices on the bench.",
        "Then the coach handed out orange slices, and everyone felt better.",
    )
    _close(s, A, [
        "{A.Name} was already looking forward to next season.",
        "That night, {A.name} slept with {A.his} soccer ball.",
    ], "{A.Name} learned that teamwork is more important than the score.")


def plot_training_wheels(s: Story) -> None:
    A = s.kid()
    P = s.parent(A)
    col = s.pick(["red", "blue", "green", "purple", "silver"])
    s.ctx.update(A=A, P=P, col=col)
    s.add(
        "{A.Name}'s {col} bike still had training wheels.",
        "All {A.his} friends rode without training wheels, but {A.name} didn't yet.",
        "\"I want the training wheels off,\" said {A.name} one morning.",
    )
    s.add(
        "{P.Name} got out a wrench and took them off, one and then the other.",
        "\"Are you sure?\" asked {P.name}, and {A.name} nodded hard.",
    )
    s.add(
        "{A.Name} climbed on. The bike felt wobbly and strange.",
        "Without the little wheels, the bike leaned and wobbled.",
    )
    s.add(
        "{P.Name} held the back of the seat and ran beside {A.him}.",
        "\"I've got you,\" said {P.name}, holding the seat.",
    )
    s.add(
        "{A.Name} wobbled and tipped and fell onto the grass.",
        "On the first try, {A.name} fell and scraped {A.his} knee.",
    )
    if s.chance(0.5):
        s.add(
            "\"I can't do it!\" cried {A.name}.",
            "{A.Name} wanted to put the training wheels back on.",
        )
        s.add(
            "\"Everybody falls at first,\" said {P.name}. \"Let's try once more.\"",
            "{P.Name} put a bandage on the knee and said, \"One more try?\"",
        )
    else:
        s.add(
            "\"Again!\" said {A.name}, getting right back up.",
            "{A.Name} brushed off the grass and climbed back on.",
        )
    s.add(
        "This time, {A.name} pedaled hard and looked far ahead.",
        "{A.Name} pushed off, pedaled fast and kept {A.his} eyes on the path.",
    )
    s.add(
        "When {A.he} looked back, {P.name} wasn't holding on anymore.",
        "{A.Name} didn't know {P.name} had let go, but {P.he} had.",
    )
    s.add(
        "\"I'm doing it, I'm really doing it!\" {A.name} shouted.",
        "\"Look at me!\" yelled {A.name}, zooming down the sidewalk.",
    )
    _close(s, A, [
        "The training wheels went into the garage, and they never came out again.",
        "{A.Name} rode around the block until the streetlights came on.",
    ], "{A.Name} learned that falling down is part of learning.")


# ---------------------------------------------------------------------------
# Small mysteries
# ---------------------------------------------------------------------------


def plot_cookie_mystery(s: Story) -> None:
    A = s.kid()
    P = s.parent(A)
    thief, where, how = s.pick([c for c in COOKIE_THIEVES if c[0] != "Grandpa" or P.kind != "grandpa"])
    s.ctx.update(A=A, P=P, thief=s.fill(thief, A=A), where=where, how=how, clue=s.pick(CLUES))
    s.add(
        "{P.Name} had baked a whole plate of cookies, but now the plate was empty.",
        "\"Who ate the cookies?\" asked {P.name}, holding up an empty jar.",
        "The cookie jar was empty, and nobody knew why.",
    )
    s.add(
        "Everyone looked at {A.name}.",
        "{P.Name} looked at {A.name}, and {A.name} looked at {P.name}.",
    )
    s.add(
        "\"It wasn't me!\" said {A.name}.",
        "\"I didn't do it, and I'll prove it,\" {A.name} said.",
    )
    s.add(
        "{A.Name} put on {A.his} detective hat and took out a magnifying glass.",
        "{A.Name} decided to solve the mystery like a real detective.",
    )
    s.add(
        "On the floor, {A.he} found {clue}.",
        "The first clue was {clue}.",
    )
    s.add(
        "{A.He} followed the clues through the hallway and into the living room.",
        "The clues led around the corner.",
    )
    s.add(
        "There was {thief}, {where}, {how}.",
        "{A.Name} found {thief} {where}, {how}.",
    )
    if s.chance(0.5):
        s.add(
            "\"Case closed!\" said {A.name}.",
            "\"Aha, mystery solved!\" {A.name} laughed.",
        )
        s.add(
            "{P.Name} said sorry for blaming {A.name}.",
            "\"Sorry, I should have asked first,\" said {P.name}.",
        )
    else:
        s.add(
            "\"Don't be too cross,\" said {A.name}. \"Everybody loves your cookies.\"",
            "{A.Name} giggled, and so did {P.name}.",
        )
    s.add(
        "Then they baked another batch together, and this time they hid the jar.",
        "The next day, {P.name} made more cookies, and {A.name} got the first one.",
    )
    _close(s, A, [
        "{A.Name} kept the magnifying glass by {A.his} bed, ready for the next mystery.",
        "From then on, everyone called {A.name} the Cookie Detective.",
    ], "{A.Name} learned that you should look for clues before you blame someone.")


def plot_strange_footprint(s: Story) -> None:
    A = s.kid()
    B = _pal(s)
    what, answer = s.pick(FOOTPRINT_OWNERS)
    s.ctx.update(A=A, B=B, what=s.fill(what, A=A), answer=s.fill(answer, A=A))
    s.add(
        "In the mud by the back gate, {A.name} found a strange footprint.",
        "After the rain, {A.name} noticed odd prints in the soft ground.",
        "\"Come look at this!\" {A.name} called to {B.name}, pointing at the mud.",
    )
    s.add(
        "It was big and funny-shaped, with long toes.",
        "The footprint had three long toes and no heel at all.",
    )
    s.add(
        "\"A monster!\" whispered {B.name}.",
        "\"Maybe it's a dinosaur,\" said {B.name}, wide-eyed.",
    )
    s.add(
        "They drew the footprint in a notebook and measured it with a ruler.",
        "{A.Name} made a plaster cast, just like detectives on TV.",
    )
    s.add(
        "There were more prints, leading toward the pond.",
        "The tracks went on across the garden.",
    )
    if s.chance(0.5):
        s.add(
            "They followed the tracks, tiptoeing, with their hearts pounding.",
            "Very quietly, they followed the trail.",
        )
        s.add(
            "And there it was: {answer}.",
            "At the end of the trail, they found {answer}.",
        )
    else:
        s.add(
            "They decided to hide behind the bush and wait.",
            "They set up a lookout behind the shed and waited with snacks.",
        )
        s.add(
            "Just before dark, they saw {answer}.",
            "After a long wait, they spotted {answer}.",
        )
    s.add(
        "\"So it was {what} all along,\" laughed {A.name}.",
        "\"Not a monster,\" said {B.name}, sounding a little disappointed.",
    )
    s.add(
        "{A.Name} wrote MYSTERY SOLVED in the notebook.",
        "They looked it up in a book, and the prints matched exactly.",
    )
    _close(s, A, [
        "The next day, they went out looking for a new footprint to solve.",
        "{A.Name} put the notebook on {A.his} shelf, under a sign that said CLUES.",
    ], "{A.Name} learned that a mystery is just a question waiting to be answered.")


def plot_missing_book(s: Story) -> None:
    A = s.kid()
    L = _grownup(s, "librarian", _words("Miss_Quire Mister_Ink Miss_Bindi Mister_Folio"))
    P = s.parent(A)
    title = s.pick(BOOK_TITLES)
    s.ctx.update(A=A, L=L, P=P, title=title, spot=s.fill(s.pick(BOOK_SPOTS), A=A))
    s.add(
        "{A.Name} had borrowed a book called {title} from the library.",
        "{title} was {A.name}'s favorite library book.",
        "The library book was due back on Friday, and {A.name} couldn't find it anywhere.",
    )
    if "couldn't find" not in s.lines[-1]:
        s.add(
            "But on the day it was due, the book was gone.",
            "When it was time to take it back, it was missing.",
        )
    s.add(
        "{A.He} looked under the bed, in {A.his} backpack and behind the sofa.",
        "{A.Name} searched every room in the house.",
    )
    s.add(
        "\"Think,\" said {P.name}. \"Where did you read it last?\"",
        "\"Let's be detectives,\" said {P.name}. \"Where were you reading it?\"",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} remembered reading it in the car on Sunday.",
            "{A.Name} thought very hard and remembered the picnic.",
        )
        s.add(
            "At last, they found it {spot}.",
            "And there it was, {spot}.",
        )
        s.add(
            "{A.Name} hugged it and ran all the way to the library.",
            "They returned it just before the library closed.",
        )
    else:
        s.add(
            "They looked everywhere, but the book didn't turn up.",
            "After a whole afternoon of searching, there was still no book.",
        )
        s.add(
            "{A.Name} went to the library and told {L.name} the truth.",
            "With a shaky voice, {A.name} told {L.name} that {A.he} had lost the book.",
        )
        s.add(
            "\"Thank you for being honest,\" said {L.name}. \"Books often turn up.\"",
            "{L.Name} smiled. \"Honesty is the best thing to bring to a library.\"",
        )
        s.add(
            "Two days later, {A.name} found it {spot}.",
            "A week later, it turned up {spot}.",
        )
    s.add(
        "\"Welcome back, {title},\" said {L.name}, and stamped the card.",
        "{L.Name} laughed. \"This book has had an adventure!\"",
    )
    _close(s, A, [
        "After that, {A.name} always put library books on one special shelf.",
        "{A.Name} borrowed the next book in the series and kept it very safe.",
    ], "{A.Name} learned to take good care of things that belong to others.")


PLOTS: list[Callable[[Story], None]] = [
    plot_class_trip, plot_spelling_test, plot_new_language, plot_school_play, plot_lunch_swap,
    plot_science_project, plot_recess_game, plot_substitute, plot_losing_well,
    plot_lemonade_stand, plot_puppet_show, plot_friend_map, plot_paper_boats, plot_chalk_rain,
    plot_post_office, plot_fire_truck, plot_market_day, plot_street_festival,
    plot_new_playground, plot_barber, plot_bakery_first, plot_lost_dog_poster,
    plot_bus_birthday, plot_tow_truck, plot_tugboat, plot_hot_air_balloon, plot_late_train,
    plot_first_swim, plot_soccer_match, plot_training_wheels, plot_cookie_mystery,
    plot_strange_footprint, plot_missing_book,
]
