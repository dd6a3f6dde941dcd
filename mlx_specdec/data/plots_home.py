"""Home, family and school plots for the bundled story generator.

A sibling of the plots in :mod:`mlx_specdec.data.stories`: everyday stories in
the TinyStories register (a new baby, bath time, a wobbly tooth, a bus ride, a
spilled drink, a blanket fort, a class pet for the weekend ...). Each plot
draws its cast once, sets ``s.ctx["A"]`` to the hero, and writes 5-14
sentences whose every beat has several differently-worded alternatives and at
least one branch. Randomness comes only from ``s.rng`` (through ``s.pick`` and
``s.chance``), so a story is a pure function of its seed.

The module brings its own lexicon (rooms, household things, clothes, foods,
school things, grown-up helpers, feelings) so that the corpus it adds is much
broader than the 38 plots it sits next to.
"""

from __future__ import annotations

from typing import Callable

from .stories import (
    BOY_NAMES,
    GIRL_NAMES,
    PET_NAMES,
    Story,
    Who,
    _article,
    _cap,
    _phrases,
    _words,
    ending,
    feel,
)

# ---------------------------------------------------------------------------
# Lexicon of the home plots
# ---------------------------------------------------------------------------

HOUSEHOLD = _phrases(
    "sofa | armchair | rocking chair | bookshelf | dresser | nightstand | bunk bed | "
    "piano bench | rug | laundry basket | cupboard | radiator | stool | "
    "coat rack | shoe rack | toy chest | ironing board | vacuum cleaner"
)
HIDING = [
    # (room, hiding spot)
    ("living room", "behind the long curtains"), ("kitchen", "inside the big cupboard"),
    ("bedroom", "under the bunk bed"), ("bathroom", "in the empty bathtub"),
    ("hallway", "behind the coat rack"), ("laundry room", "in the laundry basket"),
    ("attic", "inside an old trunk"), ("dining room", "under the long tablecloth"),
    ("playroom", "inside the toy chest"), ("garage", "behind the lawn mower"),
    ("porch", "behind the rocking chair"), ("basement", "behind the washing machine"),
]
BATH_TOYS = _phrases(
    "rubber duck | little plastic boat | wind-up frog | bath crayon | foam letter | "
    "squirty whale | toy submarine | watering can"
)
CLOTHES_HOME = _phrases(
    "pajamas | slippers | sneakers | sandals | rain boots | mittens | a raincoat | a hoodie | "
    "a cardigan | overalls | tights | an apron | a bathrobe | a sun hat | a woolly hat | a vest | "
    "a skirt | jeans | striped socks | a sweater | a tutu | a bow tie | a cowboy hat | leggings"
)
SNACKS = _phrases(
    "apple slices | crackers and cheese | a banana | carrot sticks | a bowl of cereal | "
    "toast with jam | a cheese sandwich | yogurt | oatmeal | a boiled egg | grapes | "
    "a peanut butter sandwich | a plum | a bowl of popcorn | a muffin"
)
SOUP_VEG = _words(
    "carrots potatoes onions celery peas beans leeks corn tomatoes zucchini spinach "
    "lentils noodles mushrooms parsnips"
)
SHOP_ITEMS = _phrases(
    "milk | eggs | bread | butter | flour | sugar | rice | cheese | apples | bananas | "
    "oranges | carrots | potatoes | onions | tomatoes | lettuce | cucumbers | oats | "
    "yogurt | honey | jam | pasta | beans | soap | toothpaste | napkins | peanut butter | "
    "cereal | lemons | grapes | tea | cocoa"
)
SHOP_WRONG = _phrases(
    "a giant bag of marshmallows | a box of chocolate cookies | a jar of pickles | "
    "a purple cake | a bag of candy | a bottle of bubble soap | a box of sparkly straws"
)
SCHOOL_THINGS = _phrases(
    "pencil case | ruler | eraser | glue stick | scissors | sharpener | reading book | "
    "notebook | recorder | crayons | marker | folder | workbook | name tag | spelling list"
)
CRAFT = _phrases(
    "glitter | stickers | ribbon | buttons | gold stars | crayons | markers | "
    "cotton balls | paint | sequins | yarn | tissue paper | string"
)
CARD_PICTURES = _phrases(
    "a big red heart | a smiling sun | a rainbow | a cat with a hat | a bunch of flowers | "
    "a boat on the sea | a tall tree | a house with a blue door | a rocket and stars"
)
CARD_REASONS = [
    # (who it is for, why, what it says)
    ("grandma", "she was not feeling well", "Get well soon"),
    ("grandpa", "it was his birthday", "Happy birthday"),
    ("teacher", "it was the last day of school", "Thank you"),
    ("neighbor", "she had moved in next door", "Welcome"),
    ("aunt", "she had a new baby", "Hello, little baby"),
    ("best friend", "he was moving away", "I will miss you"),
]
GROWNUPS = [
    # (role, name options, pronoun)
    ("teacher", _words("Miss_Rose Miss_Lane Mister_Hill Miss_Patel Mister_Cole Miss_Ford"), None),
    ("neighbor", _words("Mister_Brown Miss_Ada Grandpa_Ned Miss_Olive Mister_Ortiz"), None),
    ("baker", _words("Miss_Bun Mister_Crumb Miss_Flo"), None),
    ("bus driver", _words("Mister_Gus Miss_Dot Mister_Sal"), None),
    ("librarian", _words("Miss_Page Mister_Reed Miss_June"), None),
    ("doctor", _words("Doctor_Lee Doctor_Kim Doctor_Shaw Doctor_Ruiz"), None),
    ("dentist", _words("Doctor_Bright Doctor_Pearl Doctor_Chen"), None),
    ("hairdresser", _words("Miss_Curl Mister_Tony Miss_Bea"), None),
    ("music teacher", _words("Miss_Melody Mister_Vance Miss_Harper"), None),
    ("shopkeeper", _words("Mister_Amir Miss_Joy Mister_Pat"), None),
]
GRUMPY = _words("grumpy cross sulky cranky crabby prickly stormy")
BETTER = _words("calm cozy cheerful sunny relieved peaceful lighter")
MORNING_WRONGS = _phrases(
    "the cereal was soggy | {his} sock was inside out | the toothpaste squirted on the mirror | "
    "{his} little brother took the last pancake | {his} favorite shirt was in the wash | "
    "the milk was all gone | {his} hair would not lie flat | {he} stubbed {his} toe on the dresser"
)
JOKES = [
    ("What do you call a sleeping dinosaur?", "A dino-snore!"),
    ("Why did the cookie go to the doctor?", "Because it felt crummy!"),
    ("What do cows read?", "Cow-mics!"),
    ("Why did the banana go to the nurse?", "It was not peeling well!"),
    ("What kind of tree fits in your hand?", "A palm tree!"),
    ("What do you call a bear with no teeth?", "A gummy bear!"),
    ("Why are ghosts bad at lying?", "You can see right through them!"),
    ("What did one plate say to the other plate?", "Lunch is on me!"),
    ("What has ears but cannot hear?", "A cornfield!"),
    ("Why did the teddy bear say no to dessert?", "It was already stuffed!"),
]
COSTUMES = _phrases(
    "pirate | knight | astronaut | dragon | wizard | bumblebee | robot | lion | "
    "mermaid | superhero | ladybug | firefighter | dinosaur | princess | penguin | ghost"
)
INSTRUMENTS = _phrases("piano | violin | recorder | trumpet | cello | drum | ukulele | flute | guitar")
CLASS_PETS = [
    ("hamster", "a squeaky wheel", "sunflower seeds"),
    ("guinea pig", "a little wooden house", "lettuce"),
    ("gerbil", "a cardboard tube", "seeds"),
    ("rabbit", "a pile of hay", "carrot tops"),
    ("mouse", "a tiny ladder", "oats"),
]
FISH_NAMES = _words("Bubbles Finn Goldie Splash Nemo Sunny Flicker Wiggles Orange Captain Blip Swish")
RAIN_GAMES = _phrases(
    "build a marble run | play a board game | bake banana bread | make a puppet show | "
    "do a jigsaw puzzle | paint with watercolors | play hide and seek inside | "
    "make paper airplanes | have a dance party in the living room"
)
FORT_THINGS = _phrases(
    "chairs | sofa cushions | blankets | bedsheets | pillows | clothespins | a big old quilt | "
    "a clothes horse | a beach towel | two kitchen stools"
)
VEHICLES = [("bus", "bus stop", "the driver", "seat by the window"),
            ("train", "station", "the conductor", "seat by the window"),
            ("tram", "tram stop", "the driver", "seat at the front")]
DESTINATIONS = _phrases(
    "the city museum | the aquarium | grandma's town | the seaside | the big library | "
    "the swimming pool | the science center | the market downtown"
)
NEIGHBOR_JOBS = [
    # (the trouble, how the neighbor helped)
    ("the front gate was stuck", "oiled the squeaky hinge until it swung open"),
    ("{A.name}'s bike had a flat tire", "pumped up the tire with a big blue pump"),
    ("{A.name}'s kite was caught on the garage roof", "got out a long ladder and reached it"),
    ("{A.name}'s ball had gone over the fence", "found it in the roses and tossed it back"),
    ("{A.name} was locked out and nobody was home yet", "had a spare key and let {A.him} in"),
    ("the little tomato plants were drooping", "showed {A.name} how to tie each stem to a stick"),
]
SIBLING_ADVICE = [
    # (worry, advice, result)
    ("the spelling test", "say each word out loud and then write it three times",
     "got nearly every word right"),
    ("the swimming lesson", "blow bubbles in the water first and count to three",
     "put {his} face in the water and came up grinning"),
    ("the school play", "look at one friendly face in the crowd and pretend it is just for them",
     "said every line without a wobble"),
    ("a new class", "ask one person a question, like what their favorite animal is",
     "had a new friend by lunchtime"),
    ("the first sleepover", "pack something from home that smells like home",
     "fell asleep hugging {his} old pillow"),
]


def _grownup(s: Story, role: str) -> Who:
    for r, names, _ in GROWNUPS:
        if r == role:
            name = s.pick(names).replace("_", " ")
            pron = "he" if name.startswith(("Mister", "Grandpa")) else "she"
            if name.startswith("Doctor"):
                pron = s.pick(["he", "she"])
            w = Who(name, pron, role)
            w.called = f"{name}, the {role}"
            return w
    raise KeyError(role)


def _sibling(s: Story, kind: str) -> Who:
    """A named brother or sister; kind is e.g. 'big sister', 'baby brother'."""
    girl = kind.endswith("sister")
    w = Who(s._fresh(GIRL_NAMES if girl else BOY_NAMES), "she" if girl else "he", kind)
    return w


def _ref(A: Who, B: Who) -> str:
    """How B is first named in A's story: "her big brother Joe", "his friend Mia", "her dad"."""
    if B.kind.startswith(("big ", "little ", "baby ")):
        return f"{A.his} {B.kind} {B.name}"
    if B.kind in ("girl", "boy", "kid"):
        return f"{A.his} friend {B.name}"
    return B.name


def _gpar(s: Story, A: Who) -> Who:
    """Mom, dad or a grandparent, named by role ("her mom" / "Mom")."""
    return s.parent(A)


HOME_ENDINGS = _phrases(
    "It was a good day after all. | "
    "That night, {A.name} went to bed with a big smile. | "
    "{A.Name} would never forget that day. | "
    "And that was a very good day. | "
    "It had been a long day, and a happy one. | "
    "The end."
)


def _close(s: Story, A: Who, own: list[str], moral: str | None = None, p_own: float = 0.6) -> None:
    """Finish with the plot's own last line most of the time, else a moral or a
    generic line that suits a story set at home (no "all the way home")."""
    if s.chance(p_own):
        s.add(*own)
    elif moral and s.chance(0.5):
        ending(s, A, moral, 1.0)
    else:
        s.add(*HOME_ENDINGS)


# ---------------------------------------------------------------------------
# Plots
# ---------------------------------------------------------------------------


def plot_new_baby(s: Story) -> None:
    A = s.kid()
    role_p, pron_p = s.pick([("mom", "she"), ("dad", "he")])
    P = Who(f"{A.his} {role_p}", pron_p, role_p)
    P.vocative = _cap(role_p)
    girl = s.chance(0.5)
    C = Who(s._fresh(GIRL_NAMES if girl else BOY_NAMES), "she" if girl else "he",
            "baby sister" if girl else "baby brother")
    s.ctx.update(A=A, P=P, C=C,
                 role="sister" if A.he == "she" else ("brother" if A.he == "he" else "sibling"))
    s.add(
        "When {A.name} was five, a new baby came home.",
        "{A.Name} had a brand new {C.kind}.",
        "One week in spring, {A.name}'s family got bigger.",
        "{A.Name} was going to be a big {role}, and now the day was here.",
    )
    s.add(
        "The baby was called {C.name}, and {C.he} had tiny fingers and a red, wrinkly face.",
        "{C.His} name was {C.name}. {C.He} slept in a little crib next to the window.",
        "{C.Name} was very small and wrapped in a {col} blanket.",
        col=s.pick(["yellow", "soft white", "pale blue", "mint green", "pink"]),
    )
    s.add(
        "Everyone wanted to hold {C.name}, and nobody had time to play.",
        "Grandma came to visit, but she only looked at the baby.",
        "All day long, the grown-ups whispered, \"Shh! The baby is sleeping.\"",
    )
    s.add(
        "{A.Name} felt left out and a little jealous.",
        "\"Nobody sees me anymore,\" {A.name} mumbled.",
        "{A.Name} sat on the stairs with {A.his} arms crossed.",
    )
    if s.chance(0.5):
        s.add(
            "{P.Name} noticed and sat down next to {A.him}.",
            "Later, {P.name} came and found {A.him} on the stairs.",
        )
        job = s.rng.randrange(3)
        s.add((
            "\"I have a very important job for you,\" {P.name} said. \"Can you sing {C.name} a song?\"",
            "\"Would you like to help me give {C.name} a bath?\" asked {P.name}.",
            "\"You know what? {C.Name} likes your voice best,\" {P.name} whispered.",
        )[job])
        s.add(*((
            "{A.Name} sang a quiet song, and {C.name} stopped crying.",
            "{A.Name} sang about a sleepy moon, and {C.name}'s eyes slowly closed.",
        ), (
            "{A.Name} held the towel and the little yellow duck, and {C.name} kicked {C.his} feet.",
            "{A.Name} poured warm water gently over {C.name}'s toes, and {C.he} cooed.",
        ), (
            "{A.Name} leaned over the crib and hummed, and the baby's eyes went wide.",
            "{A.Name} whispered a story into the crib, and {C.name} listened with big eyes.",
        ))[job])
    else:
        s.add(
            "Then {C.name} began to cry, and nobody could make {C.him} stop.",
            "That evening, {C.name} cried and cried.",
        )
        s.add(
            "{A.Name} made a silly face and stuck out {A.his} tongue.",
            "{A.Name} shook {A.his} old rattle and pulled a funny face.",
        )
        s.add(
            "{C.Name} stopped crying and stared. Then {C.he} gave a little gurgle.",
            "The crying stopped. {C.Name} looked right at {A.name} and smiled {C.his} very first smile.",
        )
        s.add("\"Look! {C.He} likes me!\" {A.name} laughed.", "\"{C.He} smiled at me!\" shouted {A.name}.")
    feel(s, A, good=True)
    _close(s, A, [
        "Being a big {role} was not so bad after all.",
        "From then on, {A.name} was {C.name}'s favorite person in the whole house.",
        "That night, {A.name} kissed {C.name} on the head and said, \"Good night, little one.\"",
    ], "{A.Name} learned that there is always enough love to go around.")


def plot_bath_time(s: Story) -> None:
    A = s.kid()
    P = _gpar(s, A)
    toy = s.pick(BATH_TOYS)
    mess = s.pick(["mud", "paint", "sand", "jam", "grass stains", "chocolate"])
    s.ctx.update(A=A, P=P, toy=toy, mess=mess)
    s.add(
        "{A.Name} had {mess} on {A.his} knees, {A.his} elbows and even {A.his} nose.",
        "After a long day outside, {A.name} was covered in {mess}.",
        "It was bath time, and {A.name} was hiding behind the sofa.",
    )
    s.add(
        "\"Bath time!\" called {P.name} from the bathroom.",
        "\"Time for a bath, {A.name},\" said {P.name}.",
        "{P.Name} turned on the faucet and the tub began to fill.",
    )
    s.add(
        "\"I don't want a bath!\" {A.name} said. \"Baths are boring.\"",
        "\"No bath today!\" shouted {A.name}, and {A.he} ran down the hallway.",
        "{A.Name} folded {A.his} arms. \"Can't I skip it just this once?\"",
    )
    if s.chance(0.5):
        s.add(
            "{P.Name} smiled and poured in a cap of bubble soap.",
            "So {P.name} added a big squirt of bubbles.",
        )
        s.add(
            "Soon the bubbles were as tall as a mountain.",
            "The foam grew and grew until it spilled over the edge.",
        )
        s.add(
            "{A.Name} peeked in. \"Whoa! Can I make a bubble beard?\"",
            "\"Is that a bubble castle?\" asked {A.name} with wide eyes.",
        )
    else:
        s.add(
            "{P.Name} held up the {toy}. \"Oh dear. The {toy} is lonely in there.\"",
            "\"The {toy} is waiting for you,\" said {P.name} with a wink.",
        )
        s.add(
            "{A.Name} could not leave the {toy} all alone.",
            "{A.Name} thought about it for a long moment.",
        )
        s.add(
            "{A.He} climbed in and made the {toy} sail from one end of the tub to the other.",
            "{A.He} hopped in with a splash, and the {toy} bobbed on the waves.",
        )
    s.add(
        "{P.Name} washed {A.his} hair and scrubbed off all the {mess}.",
        "The warm water washed away every bit of {mess}.",
        "{A.Name} scrubbed {A.his} own knees with a soft sponge.",
    )
    s.add(
        "When the water got cold, {A.name} didn't want to get out!",
        "\"Five more minutes?\" {A.name} begged when it was time to get out.",
        "Later, {A.name} was wrapped in a fluffy towel like a burrito.",
    )
    _close(s, A, [
        "{A.Name} went to bed smelling of soap and warm towels.",
        "\"Maybe baths aren't so bad,\" {A.name} said with a sleepy yawn.",
        "The next night, {A.name} was the first one in the bathroom.",
    ])


def plot_bedtime_stall(s: Story) -> None:
    A = s.kid()
    P = _gpar(s, A)
    snack = s.pick(["a glass of water", "a cracker", "a tissue", "a banana", "my other teddy"])
    s.ctx.update(A=A, P=P)
    s.add(
        "It was eight o'clock, and {A.name} was not sleepy at all.",
        "{A.Name} had a plan: {A.he} would not go to sleep tonight.",
        "Every night, {A.name} found a reason to stay up just a little longer.",
    )
    s.add(
        "{P.Name} tucked {A.him} in and turned off the big light.",
        "{A.Name} was in {A.his} pajamas, and {P.name} had read two stories.",
        "{P.Name} pulled up the quilt and kissed {A.him} good night.",
    )
    s.add(
        "\"Can I have {snack}?\" {A.name} asked.",
        "\"Wait! I need {snack},\" {A.name} called.",
        snack=snack,
    )
    s.add(
        "{P.Name} sighed and brought it.",
        "\"Just this once,\" {P.name} said.",
    )
    stall = s.pick([
        "\"My teddy needs a kiss too!\"",
        "\"There's a funny noise in the closet!\"",
        "\"I forgot to tell you something about dinosaurs!\"",
        "\"My sock feels itchy!\"",
    ])
    s.add(
        "Two minutes later, {A.name} called out again. {stall}",
        "Soon {A.he} {A.was} calling again: {stall}",
        stall=stall,
    )
    if s.chance(0.5):
        s.add(
            "This time, {P.name} sat on the edge of the bed. \"Are you worried about something?\"",
            "{P.Name} came back and asked quietly, \"What's really wrong?\"",
        )
        s.add(
            "{A.Name} whispered, \"It's so dark, and I don't like being alone.\"",
            "\"I'm scared of the dark,\" {A.name} admitted in a small voice.",
        )
        s.add(
            "{P.Name} plugged in a little night-light shaped like a moon.",
            "{P.Name} left the door open a crack so the hallway light came in.",
        )
    else:
        if s.chance(0.5):
            s.add(
                "{P.Name} laughed. \"Let's count sheep together. One, two, three...\"",
                "\"Let's count sheep,\" {P.name} whispered. \"One, two, three...\"",
            )
            s.add(
                "{A.Name} closed {A.his} eyes and counted. Four, five, six...",
                "{A.Name} counted sheep jumping over a little fence.",
            )
        else:
            s.add(
                "\"Close your eyes and think of the quietest place in the world,\" said {P.name}.",
                "\"Think of somewhere calm and quiet,\" {P.name} said softly.",
            )
            s.add(
                "{A.Name} thought of a still lake under the stars.",
                "{A.Name} pictured a soft, snowy field where nothing moved.",
            )
    s.add(
        "{A.His} eyes grew heavy, and {A.his} breathing went slow.",
        "Before {A.he} could think of another question, {A.he} {A.was} fast asleep.",
        "{A.Name} yawned a giant yawn and snuggled down.",
    )
    _close(s, A, [
        "Good night, {A.name}. Sleep tight.",
        "{P.Name} tiptoed out and smiled at the door.",
        "And this time, {A.name} didn't call out once.",
    ])


def plot_wobbly_tooth(s: Story) -> None:
    A = s.kid()
    P = _gpar(s, A)
    food = s.pick(["a crunchy apple", "a piece of toast", "a carrot stick", "an ear of corn", "a pretzel"])
    s.ctx.update(A=A, P=P, food=food)
    s.add(
        "{A.Name} had a wobbly tooth.",
        "One of {A.name}'s front teeth was wobbly.",
        "On Monday morning, {A.name} found that {A.his} tooth was loose.",
    )
    s.add(
        "{A.He} wiggled it with {A.his} tongue all through breakfast.",
        "It wiggled when {A.he} talked, and it wiggled when {A.he} ate.",
        "{A.He} showed it to everyone: {A.his} teacher, {A.his} friends and even the cat.",
    )
    s.add(
        "\"Will it hurt when it comes out?\" {A.name} asked {P.name}.",
        "\"What if it never comes out?\" {A.name} worried.",
        "\"I'm scared to pull it,\" {A.name} said.",
    )
    s.add(
        "\"It will come out when it's ready,\" {P.name} said. \"Then a new one will grow.\"",
        "{P.Name} smiled. \"Every big kid loses teeth, and it won't hurt much.\"",
    )
    if s.chance(0.5):
        s.add(
            "At lunch, {A.name} bit into {food}.",
            "That afternoon, {A.name} took a big bite of {food}.",
        )
        s.add(
            "Crunch! Something small and white fell onto {A.his} plate.",
            "Pop! The tooth came right out.",
        )
    else:
        s.add(
            "At bedtime, {A.name} gave the tooth one last wiggle.",
            "While brushing {A.his} teeth, {A.name} pushed it gently with {A.his} finger.",
        )
        s.add(
            "Plink! It landed in the sink.",
            "It came out with a tiny click, and it didn't hurt at all.",
        )
    s.add(
        "\"My tooth! I lost my tooth!\" shouted {A.name}.",
        "{A.Name} grinned in the mirror. There was a gap where the tooth had been.",
        "\"Look at my gap!\" {A.name} laughed. \"I can whistle through it!\"",
    )
    s.add(
        "That night, {A.he} put the tooth under {A.his} pillow.",
        "{A.He} wrapped the tooth in a tissue and put it in a little box.",
    )
    s.add(
        "In the morning, there was a shiny coin where the tooth had been.",
        "When {A.he} woke up, the tooth was gone, and there was a tiny note that said, \"Well done!\"",
        "The next day, {A.name} told the whole class about it.",
    )
    _close(s, A, ["{A.Name} couldn't wait for the next wobbly tooth.",
                  "{A.Name} smiled {A.his} gappy smile all day long."])


def plot_haircut(s: Story) -> None:
    A = s.kid()
    P = _gpar(s, A)
    H = _grownup(s, "hairdresser")
    s.ctx.update(A=A, P=P, H=H)
    s.add(
        "{A.Name}'s hair was so long that it got in {A.his} eyes.",
        "{A.Name}'s hair had grown into a big, messy tangle.",
        "On Saturday, {P.name} said it was time for {A.name} to get a haircut.",
    )
    s.add(
        "\"I don't want a haircut,\" {A.name} said. \"What if it looks silly?\"",
        "{A.Name} didn't like the sound of the scissors.",
        "\"Will it hurt?\" {A.name} asked on the way to the shop.",
    )
    s.add(
        "At the shop, {H.called}, waved hello.",
        "The shop smelled of shampoo, and {H.called}, had a big smile.",
        "{H.called}, was waiting by a tall chair that went up and down.",
    )
    s.add(
        "\"Hair doesn't feel anything,\" {H.name} said. \"It's like cutting grass.\"",
        "\"Would you like to ride the chair up?\" asked {H.name}.",
    )
    s.add(
        "{H.Name} pumped the pedal, and the chair rose up, up, up.",
        "{A.Name} sat very still under a cape with stars on it.",
        "Snip, snip went the scissors. Bits of hair fell on the floor like feathers.",
    )
    if s.chance(0.5):
        s.add(
            "Then the buzzing clippers tickled {A.his} neck, and {A.name} giggled.",
            "The clippers buzzed like a bee near {A.his} ear, and it tickled.",
        )
    else:
        s.add(
            "A bit of hair fell on {A.his} nose and made {A.him} sneeze. Achoo!",
            "{A.Name} peeked in the mirror and saw {A.his} ears again.",
        )
    s.add(
        "When it was done, {H.name} held up a mirror.",
        "At last, {H.name} brushed off the cape. \"All done!\"",
    )
    if s.chance(0.6):
        s.add(
            "\"I look so grown up!\" {A.name} said.",
            "{A.Name} turned {A.his} head left and right. \"I can see everything now!\"",
        )
    else:
        s.add(
            "\"It's too short,\" {A.name} said with a frown.",
            "{A.Name} wasn't sure about it at first.",
        )
        s.add(
            "\"Hair grows back,\" {P.name} said, \"and you look great.\" Soon {A.name} agreed.",
            "But at school the next day, three friends said it looked cool, and {A.name} felt better.",
        )
    _close(s, A, [
        "On the way home, {A.name} kept touching {A.his} new haircut.",
        "{H.Name} gave {A.him} a lollipop, and {A.name} skipped out of the shop.",
    ])


def plot_checkup(s: Story) -> None:
    A = s.kid()
    P = _gpar(s, A)
    dentist = s.chance(0.5)
    D = _grownup(s, "dentist" if dentist else "doctor")
    s.ctx.update(A=A, P=P, D=D)
    s.add(
        "Today {A.name} had a checkup with {D.name}.",
        "{A.Name} had to visit the {D.kind} on Tuesday.",
        "\"We're going to see {D.name} today,\" {P.name} said at breakfast.",
    )
    s.add(
        "{A.Name}'s tummy felt fluttery.",
        "{A.Name} held {P.name}'s hand tightly in the waiting room.",
        "In the waiting room, there was a fish tank and a box of picture books.",
    )
    if dentist:
        s.add(
            "{D.Name} had a big chair that tipped back and a light like a little sun.",
            "{A.Name} lay back in the big chair and looked up at a bright lamp.",
        )
        s.add(
            "\"Open wide like a lion,\" said {D.name}.",
            "\"Can you open your mouth as wide as a crocodile?\" asked {D.name}.",
        )
        s.add(
            "{D.He} counted {A.his} teeth with a tiny mirror. \"Twenty shiny teeth!\"",
            "{D.Name} tapped each tooth gently and counted out loud.",
        )
        s.add(
            "\"You brush very well,\" {D.name} said. \"Keep brushing twice a day.\"",
            "\"Just one thing,\" said {D.name}. \"Fewer sweets and more brushing.\"",
        )
        prize = s.pick(["a new toothbrush", "a sticker of a smiling tooth", "a tiny toothpaste"])
    else:
        if s.chance(0.6):
            s.add(
                "{D.Name} listened to {A.his} heart with a cold stethoscope.",
                "{D.Name} pressed a cold stethoscope on {A.his} chest.",
            )
            s.add(
                "\"Thump, thump,\" said {D.name}. \"Your heart sounds strong.\"",
                "\"Would you like to listen too?\" asked {D.name}, and {A.name} heard {A.his} own heartbeat.",
            )
        else:
            s.add(
                "{D.Name} checked {A.his} ears with a little light.",
                "{D.Name} looked in {A.his} ears and up {A.his} nose with a tiny flashlight.",
            )
            s.add(
                "\"Any carrots growing in there?\" {D.name} joked, and {A.name} giggled.",
                "\"All clean and healthy,\" said {D.name}.",
            )
        s.add(
            "Then {A.name} stood on the scale. {A.He} had grown two whole inches!",
            "{D.Name} measured how tall {A.name} was. \"You've grown since last time!\"",
        )
        prize = s.pick(["a star sticker", "a bandage with dinosaurs on it", "a paper crown"])
    if s.chance(0.4):
        s.add(
            "\"That wasn't scary at all,\" {A.name} whispered to {P.name}.",
            "{A.Name} let out a big breath. It was over, and it had been easy.",
        )
    s.add(
        "At the end, {A.name} got {prize}.",
        "{D.Name} gave {A.him} {prize} for being so brave.",
        prize=prize,
    )
    _close(s, A, [
        "\"Can we come back soon?\" {A.name} asked on the way out.",
        "{A.Name} wore {A.his} prize proudly all the way home.",
        "Next time, {A.name} wasn't nervous at all.",
    ], "{A.Name} learned that checkups help us stay healthy.")


def plot_bus_ride(s: Story) -> None:
    A = s.kid()
    P = _gpar(s, A)
    veh, stop, driver, seat = s.pick(VEHICLES)
    dest = s.pick(DESTINATIONS)
    s.ctx.update(A=A, P=P, veh=veh, stop=stop, driver=driver, seat=seat, dest=dest)
    s.add(
        "{A.Name} and {P.name} were taking the {veh} to {dest}.",
        "It was {A.name}'s first ride on a real {veh}.",
        "On Sunday morning, {A.name} waited at the {stop} with {P.name}.",
    )
    s.add(
        "The {veh} came around the corner with a rumble and a hiss.",
        "With a whoosh, the big {veh} pulled in.",
        "\"Here it comes!\" {A.name} shouted, jumping up and down.",
    )
    s.add(
        "{A.Name} held out the tickets, and {driver} gave {A.him} a thumbs-up.",
        "\"Good morning, hop on!\" said {driver}.",
    )
    s.add(
        "{A.Name} got the {seat}.",
        "They found a {seat}, and {A.name} pressed {A.his} nose to the glass.",
    )
    if s.chance(0.6):
        s.add(
            "{A.He} saw a dog in a raincoat, a man on a ladder and a long row of shops.",
            "Outside, the houses and trees zoomed past.",
            "{A.He} counted red cars until {A.he} lost count.",
        )
    if s.chance(0.5):
        O = Who("an old woman", "she", "woman")
        s.ctx["O"] = O
        s.add(
            "At the next stop, an old woman with a heavy bag got on, and there were no seats left.",
            "Then an old woman with a walking stick climbed on. Every seat was full.",
        )
        s.add(
            "{A.Name} stood up. \"You can have my seat,\" {A.he} said.",
            "\"Would you like my seat?\" asked {A.name}, sliding off.",
        )
        s.add(
            "\"What a kind child,\" the woman said, and she gave {A.him} a peppermint.",
            "The woman smiled. \"Thank you, dear. That's very thoughtful.\"",
        )
    else:
        s.add(
            "\"Can I press the button, please?\" {A.name} asked.",
            "{A.Name} wanted to press the red stop button more than anything.",
        )
        s.add(
            "\"Wait until I say,\" said {P.name}. \"Our stop is next.\"",
            "{P.Name} nodded. \"When you see the big clock, press it.\"",
        )
        s.add(
            "When the big clock came into view, {A.name} pressed it. Ding!",
            "Ding! The {veh} slowed down, just for them.",
        )
    _close(s, A, [
        "When they got off at {dest}, {A.name} waved to the {veh} until it was gone.",
        "\"Can we ride it home too?\" {A.name} asked, and {P.name} said yes.",
        "The ride was {A.name}'s favorite part of the whole day.",
    ])


def plot_shopping_list(s: Story) -> None:
    A = s.kid()
    P = _gpar(s, A)
    items = s.rng.sample(SHOP_ITEMS, 4)
    wrong = s.pick(SHOP_WRONG)
    s.ctx.update(A=A, P=P, i0=items[0], i1=items[1], i2=items[2], i3=items[3], wrong=wrong,
                 I1=_cap(items[1]))
    s.add(
        "{P.Name} wrote a shopping list and gave it to {A.name}.",
        "\"You can be in charge of the list today,\" {P.name} said.",
        "On Saturday, {A.name} went to the grocery store with {P.name}.",
    )
    s.add(
        "It said: {i0}, {i1}, {i2} and {i3}.",
        "The list had four things on it: {i0}, {i1}, {i2} and {i3}.",
    )
    s.add(
        "{A.Name} pushed the cart, and the wheels squeaked.",
        "{A.Name} held the list in both hands like a treasure map.",
        "The store was big and bright, with music playing.",
    )
    s.add(
        "First they found the {i0}, then the {i1}. {A.Name} ticked them off with a pencil.",
        "\"{i0}, check! {I1}, check!\" {A.name} said as {A.he} found each one.",
    )
    s.add(
        "Then {A.name} saw {wrong} on a high shelf.",
        "Near the checkout, there was {wrong}, and {A.name} wanted it badly.",
    )
    if s.chance(0.5):
        s.add(
            "{A.He} slipped it into the cart when nobody was looking.",
            "{A.He} put it in the cart and hid it under the {i1}.",
        )
        s.add(
            "At the checkout, {P.name} lifted it out. \"Was this on the list?\"",
            "But at the checkout, the shopkeeper held it up. \"Is this yours?\"",
        )
        s.add(
            "{A.Name} turned pink. \"No, it wasn't. I'm sorry.\" {A.He} put it back.",
            "\"No,\" {A.name} said quietly. \"I'll put it back.\"",
        )
    else:
        s.add(
            "{A.He} looked at the list again. It wasn't there.",
            "\"It's not on the list,\" {A.name} said to {A.himself}.",
        )
        s.add(
            "So {A.he} walked past it and found the {i2} and the {i3} instead.",
            "{A.He} left it on the shelf and went to find the {i2} and the {i3}.",
        )
        s.add(
            "\"You're a very good shopper,\" {P.name} said.",
            "{P.Name} was impressed. \"Thank you for sticking to the list!\"",
        )
    _close(s, A, [
        "At home, {A.name} helped put away every single thing.",
        "That evening, they used the {i0} and the {i1} to make dinner together.",
        "Next week, {P.name} let {A.name} write the list too.",
    ], "{A.Name} learned that a list helps you remember what you really need.")


def plot_make_card(s: Story) -> None:
    A = s.kid()
    P = _gpar(s, A)
    who, why, msg = s.pick(CARD_REASONS)
    pic = s.pick(CARD_PICTURES)
    c1, c2 = s.rng.sample(CRAFT, 2)
    s.ctx.update(A=A, P=P, who=who, why=why, msg=msg, pic=pic, c1=c1, c2=c2)
    s.add(
        "{A.Name} wanted to make a card for {A.his} {who}, because {why}.",
        "\"I'm going to make a card for my {who},\" {A.name} said, because {why}.",
        "{A.Name}'s {who} was special, and {why}.",
    )
    s.add(
        "{A.He} got out paper, {c1} and {c2}.",
        "{A.He} spread {c1} and {c2} all over the kitchen table.",
    )
    s.add(
        "On the front, {A.he} drew {pic}.",
        "{A.He} folded the paper in half and drew {pic} on the front.",
    )
    s.add(
        "Inside, {A.he} wrote \"{msg}\" in big, careful letters.",
        "Inside, in {A.his} best writing, it said \"{msg}!\"",
    )
    if s.chance(0.5):
        s.add(
            "Then {A.his} elbow knocked over the glue, and it went all over the card!",
            "Oh no! A big blob of paint dripped right in the middle.",
        )
        s.add(
            "\"It's ruined!\" {A.name} cried.",
            "{A.Name}'s lip began to wobble. \"Now it's ugly.\"",
        )
        s.add(
            "{P.Name} looked at it. \"What if that blob becomes something new?\"",
            "\"Hmm,\" said {P.name}. \"I think that spot looks like a cloud.\"",
        )
        s.add(
            "{A.Name} turned the blob into a fluffy cloud with a smiling face.",
            "{A.Name} added two eyes and a beak, and the blob became a little bird.",
        )
    s.add(
        "When {A.his} {who} opened the card, there was a big smile.",
        "{A.Name} gave the card to {A.his} {who}, who read it twice.",
    )
    s.add(
        "\"This is the best card I've ever had,\" said {A.his} {who}.",
        "\"Did you make this all by yourself?\" asked {A.his} {who}. {A.Name} nodded proudly.",
    )
    _close(s, A, [
        "The card stood on the shelf for a very long time.",
        "{A.Name} felt warm all the way down to {A.his} toes.",
    ], "{A.Name} learned that a gift made by hand is full of love.")


def plot_spilled_drink(s: Story) -> None:
    A = s.kid()
    B = s.kid()
    drink = s.pick(["grape juice", "orange juice", "chocolate milk", "pink lemonade", "cherry juice"])
    where = s.pick(["new white rug", "drawing", "homework", "favorite shirt", "library book"])
    s.ctx.update(A=A, B=B, drink=drink, where=where)
    s.add(
        "{A.Name} was at {B.name}'s house for lunch.",
        "{B.Name} had come over to play at {A.name}'s house, and they were having a snack in the kitchen.",
        "After school, {A.name} and {B.name} sat at the table with two cups of {drink}.",
    )
    s.add(
        "{A.Name} was telling a story and waving {A.his} arms around.",
        "{A.Name} reached for a cracker and didn't look where {A.his} hand was going.",
    )
    s.add(
        "Splash! The {drink} tipped over and ran all over {B.name}'s {where}.",
        "Whoops! A cup of {drink} spilled right onto {B.name}'s {where}.",
    )
    s.add(
        "\"My {where}!\" {B.name} gasped.",
        "{B.Name} stared at the sticky puddle and didn't say a word.",
    )
    if s.chance(0.5):
        s.add(
            "\"I'm so sorry,\" {A.name} said at once. \"It was an accident.\"",
            "{A.Name} jumped up. \"I'm really sorry! Let me help.\"",
        )
        s.add(
            "{A.He} grabbed a towel and dabbed and dabbed.",
            "{A.He} ran for a sponge and a bucket of soapy water.",
        )
    else:
        s.add(
            "{A.Name} felt hot and embarrassed, and {A.he} mumbled, \"It wasn't my fault.\"",
            "\"The cup was too close to the edge,\" {A.name} said quickly.",
        )
        s.add(
            "But {B.name} looked so sad that {A.name}'s tummy hurt.",
            "{B.Name} turned away, and the room went very quiet.",
        )
        s.add(
            "{A.Name} took a deep breath. \"Actually, I knocked it. I'm sorry.\"",
            "After a moment, {A.name} said, \"You're right to be upset. I'm sorry I spilled it.\"",
        )
        s.add("Together, they cleaned up the mess.", "Then {A.he} helped wipe it all up.")
        s.ctx["cleaned"] = True
    if "cleaned" not in s.ctx:
        s.add(
            "Most of the {drink} came out, and only a small spot was left.",
            "The stain didn't all come out, but it was much smaller.",
        )
    s.add(
        "\"It's okay,\" said {B.name}. \"Thanks for saying sorry.\"",
        "{B.Name} shrugged and smiled. \"It kind of looks like a heart now.\"",
    )
    _close(s, A, [
        "After that, they used cups with lids, and they laughed about it for weeks.",
        "They went back to their snack, still friends.",
    ], "{A.Name} learned that saying sorry makes things better.")


def plot_left_out(s: Story) -> None:
    A = s.kid()
    B = s.kid()
    C = s.kid()
    game = s.pick(["four square", "tag", "hopscotch", "jump rope", "a game of pirates", "soccer"])
    s.ctx.update(A=A, B=B, C=C, game=game)
    s.add(
        "At recess, {B.name} and {C.name} were playing {game}.",
        "Every day at recess, the same kids played {game} by the big tree.",
        "{A.Name} stood by the fence and watched the others play {game}.",
    )
    s.add(
        "{A.Name} wanted to join in, but nobody asked {A.him}.",
        "{A.Name} kicked a pebble. {A.He} felt left out.",
        "\"They never ask me,\" {A.name} thought.",
    )
    if s.chance(0.5):
        s.add(
            "So {A.name} took a deep breath and walked over.",
            "Finally, {A.name} gathered all {A.his} courage.",
        )
        s.add(
            "\"Can I play too?\" {A.he} asked.",
            "\"Hi. Do you need one more player?\" asked {A.name}.",
        )
        s.add(
            "\"Sure!\" said {B.name}. \"We didn't know you wanted to.\"",
            "{C.Name} grinned. \"Yes! Now the teams are even.\"",
        )
    else:
        s.add(
            "{A.He} sat on the bench and drew circles in the dust.",
            "{A.He} went to sit on the steps all alone.",
        )
        s.add(
            "Then {C.name} noticed {A.him} and ran over. \"Do you want to play?\"",
            "After a while, {C.name} came over. \"Why are you sitting here?\"",
        )
        s.add(
            "\"I thought you didn't want me,\" {A.name} said.",
            "{A.Name} shrugged. \"Nobody asked me.\"",
        )
        s.add(
            "\"We always want more players!\" {C.name} said, and pulled {A.him} up.",
            "\"You can be on my team,\" said {C.name}.",
        )
    s.add(
        "They played {game} until the bell rang.",
        "{A.Name} ran and laughed with the others, and soon {A.his} cheeks were pink.",
    )
    s.add(
        "The next day, {A.name} saw a new kid standing by the fence.",
        "Later that week, a quiet boy stood alone by the slide.",
    )
    s.add(
        "{A.Name} remembered how that felt, so {A.he} went over and said, \"Come and play with us!\"",
        "This time, {A.name} was the one who asked, \"Want to join in?\"",
    )
    _close(s, A, ["Now nobody at recess had to feel left out.",
                  "{A.Name} knew that one small question could change a whole day."],
           "{A.Name} learned that it is kind to invite others in.")


def plot_jokes(s: Story) -> None:
    A = s.kid()
    P = _gpar(s, A)
    jokes = s.rng.sample(JOKES, 2)
    s.ctx.update(A=A, P=P, q1=jokes[0][0], a1=jokes[0][1], q2=jokes[1][0], a2=jokes[1][1])
    s.add(
        "{A.Name} loved jokes more than anything.",
        "{A.Name} had a new joke book, and {A.he} read it every night.",
        "{A.Name} wanted to be the funniest kid in {A.his} class.",
    )
    s.add(
        "At dinner, {A.he} said, \"{q1}\"",
        "\"I have a joke,\" {A.name} said at breakfast. \"{q1}\"",
    )
    s.add(
        "\"I don't know,\" said {P.name}.",
        "{P.Name} thought hard. \"Hmm, I give up.\"",
    )
    s.add(
        "\"{a1}\" {A.name} shouted.",
        "\"{a1}\" {A.name} said, and laughed so hard {A.he} nearly fell off {A.his} chair.",
    )
    if s.chance(0.5):
        s.add(
            "{P.Name} laughed so much that milk came out of {P.his} nose.",
            "{P.Name} laughed and laughed.",
        )
        s.add(
            "\"Tell me another!\" {P.name} said.",
            "\"You're very funny,\" said {P.name}, wiping {P.his} eyes.",
        )
    else:
        s.add(
            "But {P.name} only smiled a little. {P.He} had heard it before.",
            "{P.Name} just said, \"Oh, that's a good one,\" but {P.he} didn't laugh.",
        )
        s.add(
            "So {A.name} tried again, this time in a squeaky mouse voice. \"{q2}\"",
            "\"Wait, I have a better one,\" said {A.name}. \"{q2}\"",
        )
        s.add(
            "\"{a2}\" And this time, everyone at the table burst out laughing.",
            "\"{a2}\" said {A.name}, and {P.name} laughed so hard that {P.he} had to hold {P.his} tummy.",
        )
    s.add(
        "The next day at school, {A.name} told the joke to {A.his} friends.",
        "{A.Name} practiced {A.his} jokes in the mirror all afternoon.",
    )
    _close(s, A, [
        "Even the teacher giggled.",
        "Soon the whole class was trading jokes, and nobody could stop laughing.",
        "{A.Name} decided that the best thing in the world was making people laugh.",
    ])


def plot_goldfish(s: Story) -> None:
    A = s.kid()
    P = _gpar(s, A)
    F = Who(s.pick(FISH_NAMES), s.pick(["he", "she"]), "goldfish")
    s.ctx.update(A=A, P=P, F=F)
    s.add(
        "{A.Name} got a goldfish for {A.his} birthday.",
        "{A.Name} had wanted a pet for a long time, and finally {A.he} got a goldfish.",
        "There was a little glass bowl on {A.name}'s desk, and in it swam a goldfish.",
    )
    s.add(
        "{A.He} named the fish {F.name}.",
        "\"I'll call you {F.name},\" {A.name} said, and the fish blew a bubble.",
    )
    s.add(
        "{F.Name} was orange and shiny, with a tail like a fan.",
        "{F.Name} swam in circles and hid behind a little plastic castle.",
    )
    s.add(
        "\"A pet is a big job,\" said {P.name}. \"You have to feed {F.him} every day.\"",
        "{P.Name} showed {A.name} how to feed {F.name}: just a tiny pinch of flakes.",
    )
    if s.chance(0.5):
        s.add(
            "One morning, {A.name} was in a rush and forgot.",
            "But one busy day, {A.name} played outside all afternoon and forgot all about {F.name}.",
        )
        s.add(
            "At bedtime, {A.he} saw {F.name} waiting at the top of the bowl, mouth open.",
            "When {A.he} came in, {F.name} was swimming slowly near the top.",
        )
        s.add(
            "\"Oh, {F.name}, I'm sorry!\" {A.name} whispered, and fed {F.him} right away.",
            "{A.Name} felt terrible. {A.He} sprinkled in the flakes, and {F.name} gobbled them up.",
        )
        s.add(
            "After that, {A.name} drew a little fish on the calendar for every day {A.he} remembered.",
            "{A.Name} made a sign that said, \"Feed {F.name}!\" and stuck it on the mirror.",
        )
    else:
        s.add(
            "{A.Name} fed {F.name} every morning before school, and never forgot once.",
            "Every day, {A.name} fed {F.name}, and every Saturday {A.he} helped clean the bowl.",
        )
        s.add(
            "{A.He} told {F.name} about {A.his} day, and {F.name} seemed to listen.",
            "When {A.he} tapped the glass softly, {F.name} swam over to say hello.",
        )
    _close(s, A, [
        "{F.Name} grew big and shiny, and {A.name} was very proud.",
        "\"Good night, {F.name},\" {A.name} said each night, and {F.name} blew a bubble back.",
    ], "{A.Name} learned that looking after a pet means remembering every day.")


def plot_moving_house(s: Story) -> None:
    A = s.kid()
    P = _gpar(s, A)
    old = s.pick(["the blue house on Maple Street", "the little flat above the bakery",
                  "the old house by the river", "the yellow house with the apple tree"])
    s.ctx.update(A=A, P=P, old=old)
    s.add(
        "{A.Name}'s family was moving to a new house.",
        "Everything {A.name} owned was packed into cardboard boxes.",
        "\"We're moving next week,\" {P.name} said, and {A.name}'s heart sank.",
    )
    s.add(
        "{A.Name} had lived in {old} {A.his} whole life.",
        "{A.Name} loved {old}, with {A.his} height marks on the kitchen door.",
    )
    s.add(
        "\"What if I don't like the new house?\" {A.he} asked.",
        "\"I don't want to go,\" {A.name} said. \"I'll miss my room.\"",
        "{A.Name} hugged the wall of {A.his} empty bedroom and said goodbye.",
    )
    s.add(
        "A big truck came, and two movers carried out the sofa, the beds and all the boxes.",
        "On moving day, a huge truck rumbled up, and the movers lifted everything inside.",
    )
    s.add(
        "The new house smelled of fresh paint and echoed when {A.he} talked.",
        "The new house was bigger, but it felt strange and empty.",
    )
    if s.chance(0.5):
        s.add(
            "Then {A.name} found a small room with a round window under the roof.",
            "Upstairs, {A.name} found a bedroom with a window seat that looked over the garden.",
        )
        s.add(
            "\"Can this be my room?\" {A.he} asked. \"Yes,\" said {P.name}.",
            "\"Is this mine?\" {A.name} asked. {P.Name} nodded.",
        )
    else:
        N = s.kid()
        s.ctx["N"] = N
        s.add(
            "Then there was a knock at the door. It was a kid from next door called {N.name}.",
            "Over the fence, {A.name} saw a kid about {A.his} age. It was {N.name}.",
        )
        s.add(
            "\"Hi! Do you want to see my tree house?\" asked {N.name}.",
            "\"Welcome to the street!\" {N.name} said. \"Do you like bikes?\"",
        )
    s.add(
        "{A.Name} unpacked {A.his} books and {A.his} night-light and put {A.his} teddy on the bed.",
        "That night, {A.name} slept in {A.his} new room with all {A.his} old things around {A.him}.",
    )
    _close(s, A, [
        "Slowly, the new house began to feel like home.",
        "\"Home is where we are together,\" {P.name} said, and {A.name} agreed.",
        "{A.Name} marked {A.his} height on the new kitchen door, and it was a fresh start.",
    ])


def plot_grandparents_visit(s: Story) -> None:
    A = s.kid()
    gma = s.chance(0.5)
    G = Who("Grandma" if gma else "Grandpa", "she" if gma else "he", "grandma" if gma else "grandpa")
    G2 = Who("Grandpa" if gma else "Grandma", "he" if gma else "she", "grandpa" if gma else "grandma")
    treat = s.pick(["a tin of homemade shortbread", "a jar of plum jam", "a knitted scarf",
                    "a bag of toffees", "an old photo album"])
    s.ctx.update(A=A, G=G, G2=G2, treat=treat)
    s.add(
        "{A.Name}'s grandparents were coming to stay for a whole week.",
        "{A.Name} was counting the days: Grandma and Grandpa were coming to visit!",
        "On Friday afternoon, a car pulled up, and out stepped Grandma and Grandpa.",
    )
    s.add(
        "{A.Name} helped make up the spare bed with clean sheets.",
        "{A.Name} waited by the window all morning.",
        "\"They're here! They're here!\" {A.name} shouted, running to the door.",
    )
    s.add(
        "{G.Name} gave {A.him} a big squeezy hug and {treat}.",
        "{G.Name} brought {treat}, and {G2.name} brought a pocket full of funny stories.",
    )
    s.add(
        "All week, {G.name} taught {A.name} how to {skill}.",
        "Every afternoon, {G.name} and {A.name} sat together so {A.name} could learn to {skill}.",
        skill=s.pick(["play cards", "knit a little scarf", "whistle with two fingers",
                      "make pancakes", "plant seeds in pots", "do a magic trick with a coin"]),
    )
    if s.chance(0.5):
        if s.chance(0.5):
            s.add("{G2.Name} told stories about when {A.name}'s mom was little.")
            s.add("\"Did Mom really fall in the pond?\" {A.name} asked, giggling.",
                  "\"Did Mom really have a pet snail?\" asked {A.name}.")
        else:
            s.add("In the evenings, {G2.name} read stories in different silly voices.")
            s.add("\"Again! Read it again!\" {A.name} begged.",
                  "{A.Name} laughed so hard at the grumpy troll voice that {A.he} got the hiccups.")
    else:
        s.add(
            "One day, it rained, so they looked at the old photo album together.",
            "On the rainy day, {G2.name} got out a box of old photos.",
        )
        s.add(
            "\"Is that you, {G2.name}?\" {A.name} asked. \"You had so much hair!\"",
            "There was a picture of {G2.name} as a little kid with a big gap in {G2.his} teeth.",
        )
    s.add(
        "When the week was over, {A.name} didn't want them to leave.",
        "Too soon, the suitcases were packed again.",
    )
    s.add(
        "\"We'll be back soon,\" said {G.name}. \"Write to us!\"",
        "\"Don't be sad,\" {G.name} said softly. \"We'll call you every Sunday.\"",
    )
    _close(s, A, [
        "{A.Name} waved until the car was just a dot at the end of the road.",
        "That night, {A.name} started writing {A.his} very first letter.",
    ])


def plot_library_book(s: Story) -> None:
    A = s.kid()
    L = _grownup(s, "librarian")
    topic = s.pick(["sharks", "volcanoes", "space", "dinosaurs", "trains", "castles", "bugs", "the ocean"])
    spot = s.pick(["under the sofa cushions", "in the bathtub", "inside the dog's bed",
                   "behind the bookshelf", "in the car", "under {his} bed"])
    s.ctx.update(A=A, L=L, topic=topic)
    spot = s.fill(spot, his=A.his)
    s.add(
        "{A.Name} borrowed a book about {topic} from {L.called}.",
        "Every Thursday, {A.name} visited {L.called}, at the library, and this week {A.he} chose a book about {topic}.",
        "{A.Name} took a book about {topic} to the desk, and {L.called}, said, \"Bring it back in two weeks.\"",
    )
    s.add(
        "{A.He} read it at breakfast, on the bus and under the covers with a flashlight.",
        "It was the best book {A.he} had ever read.",
    )
    s.add(
        "When it was time to give it back, {A.name} couldn't find it anywhere.",
        "Two weeks later, the book was gone!",
    )
    s.add(
        "{A.He} looked in {A.his} backpack, on {A.his} desk and in the toy box.",
        "{A.He} looked everywhere, but the book wasn't in any of the usual places.",
    )
    if s.chance(0.5):
        s.add(
            "At last, {A.he} found it {spot}.",
            "Then, at the very last minute, {A.he} spotted it {spot}.",
            spot=spot,
        )
        s.add(
            "But one corner was chewed and bent.",
            "The cover had a little tear in it.",
        )
    else:
        s.add(
            "{A.He} didn't find it, and {A.he} {A.was} afraid to tell {L.name}.",
            "{A.Name} felt sick with worry all the way to the library.",
        )
    s.add(
        "{A.Name} told {L.name} the truth. \"I'm sorry. I didn't look after it well.\"",
        "\"I have to tell you something,\" {A.name} said to {L.name} in a small voice.",
    )
    s.add(
        "{L.Name} smiled. \"Thank you for being honest. Let's see what we can do.\"",
        "\"Books have accidents too,\" said {L.name} kindly. \"We can fix it with tape.\"",
        "\"That was brave of you to tell me,\" {L.name} said.",
    )
    s.add(
        "Together they mended the book, and {L.name} let {A.him} choose another one.",
        "{L.Name} showed {A.him} a shelf with even more books about {topic}.",
    )
    _close(s, A, [
        "This time, {A.name} kept the book on a special shelf by {A.his} bed.",
        "{A.Name} walked home hugging {A.his} new book.",
    ], "{A.Name} learned that telling the truth is always the right choice.")


def plot_cooking_soup(s: Story) -> None:
    A = s.kid()
    P = _gpar(s, A)
    v = s.rng.sample(SOUP_VEG, 3)
    s.ctx.update(A=A, P=P, v0=v[0], v1=v[1], v2=v[2])
    s.add(
        "It was a cold evening, and {P.name} said, \"Let's make soup.\"",
        "{A.Name} was allowed to help make soup for the first time.",
        "On a chilly Sunday, {A.name} put on {A.his} apron and stood on a stool by the stove.",
    )
    s.add(
        "They needed {v0}, {v1} and {v2}.",
        "{A.Name} washed the {v0} and the {v1} in the sink.",
    )
    s.add(
        "{P.Name} chopped with a big knife, and {A.name} tore the herbs with {A.his} fingers.",
        "{A.Name} used a small, safe knife to cut the {v1} into little pieces.",
    )
    s.add(
        "Everything went into a big pot with water and a pinch of salt.",
        "Plop, plop, plop! The vegetables splashed into the pot.",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} tasted it with a spoon. \"Yuck, it needs something,\" {A.he} said.",
            "When {A.he} tasted it, {A.name} made a face. \"It's a bit boring.\"",
        )
        s.add(
            "\"What do you think it needs?\" asked {P.name}.",
            "\"You're the chef,\" said {P.name}. \"What should we add?\"",
        )
        s.add(
            "{A.Name} added a little pepper and a squeeze of lemon.",
            "{A.Name} sprinkled in cheese and stirred it round and round.",
        )
    else:
        s.add(
            "The pot bubbled and steamed, and the kitchen smelled wonderful.",
            "\"How long until it's ready?\" {A.name} asked every five minutes.",
        )
        s.add(
            "{A.Name} stirred the soup slowly with a long wooden spoon.",
            "{A.Name} watched the {v2} go soft and bright in the bubbling pot.",
        )
    s.add(
        "They ate it with crusty bread, and {A.name} had two bowls.",
        "The whole family sat down to eat, and everyone said it was delicious.",
    )
    _close(s, A, [
        "\"Can we make soup again tomorrow?\" {A.name} asked with a full tummy.",
        "From then on, they called it {A.name}'s Famous Soup.",
    ], "{A.Name} learned that food tastes best when you make it yourself.")


def plot_costume_party(s: Story) -> None:
    A = s.kid()
    B = s.kid()
    cost = s.pick(COSTUMES)
    other = s.pick(["scarecrow", "mummy", "melted snowman", "haystack", "walking laundry pile", "ghost"])
    if other == cost:
        other = "scarecrow"
    s.ctx.update(A=A, B=B, cost=cost, other=other, art=_article(cost), oart=_article(other),
                 costs=cost + ("es" if cost.endswith("ss") else "s"))
    s.add(
        "{B.Name} was having a costume party, and {A.name} was invited.",
        "There was a costume party at school on Friday.",
        "{A.Name} found an invitation in {A.his} backpack: a costume party at {B.name}'s house!",
    )
    s.add(
        "{A.Name} wanted to dress up as {art} {cost}.",
        "\"I'm going to be {art} {cost}!\" {A.name} announced.",
    )
    s.add(
        "{A.He} made the costume out of cardboard boxes, tape and an old sheet.",
        "{A.He} worked on {A.his} costume for three whole days, with paint, paper and lots of glue.",
    )
    if s.chance(0.5):
        s.add(
            "But at the party, {B.name} was dressed as {art} {cost} too!",
            "When {A.he} walked in, {A.he} saw another {cost}. It was {B.name}!",
        )
        s.add(
            "{A.Name} felt silly. \"We're the same,\" {A.he} mumbled.",
            "For a moment, nobody said anything.",
        )
        s.add(
            "Then {B.name} laughed. \"We can be twin {costs}!\"",
            "\"Cool!\" said {B.name}. \"Let's be a team!\"",
        )
        s.add(
            "They did everything together and won the prize for best pair.",
            "All night, the two {costs} danced side by side.",
        )
    else:
        s.add(
            "On the way, it began to rain, and {A.his} cardboard costume went soggy.",
            "On the way to the party, a big piece of the costume fell off.",
        )
        s.add(
            "\"Oh no,\" {A.name} groaned. \"Now what am I?\"",
            "{A.Name} stared at the droopy mess and wanted to go home.",
        )
        s.add(
            "\"You're {oart} {other} now!\" said {B.name}, and everyone cheered.",
            "{B.Name} looked at it. \"I think you make a great {other}.\"",
        )
        s.add(
            "{A.Name} laughed and decided to be {oart} {other} for the night.",
            "So {A.name} was {oart} {other} instead, and it was even more fun.",
        )
    s.add(
        "There was music, apple bobbing and a big cake shaped like a moon.",
        "They played musical chairs and ate orange cupcakes.",
    )
    _close(s, A, ["{A.Name} didn't take off the costume until bedtime.",
                  "It was the best party of the whole year."])


def plot_tying_shoes(s: Story) -> None:
    A = s.kid()
    H = _sibling(s, s.pick(["big sister", "big brother"])) if s.chance(0.5) else s.parent(A)
    s.ctx.update(A=A, H=H, Href=_ref(A, H) if H.kind.startswith("big") else H.name)
    s.add(
        "{A.Name} had new sneakers with long laces.",
        "All the big kids could tie their shoes, but {A.name} couldn't.",
        "Every morning, someone had to tie {A.name}'s shoes.",
    )
    s.add(
        "\"I want to do it by myself,\" {A.name} said.",
        "{A.Name} was tired of waiting. \"Show me how!\"",
    )
    s.add(
        "{Href} knelt down and said, \"Make a bunny ear, then another bunny ear.\"",
        "\"It's like a rabbit going round a tree and into a hole,\" said {Href}.",
    )
    s.add(
        "{A.Name} tried, but the laces flopped and tangled into a knot.",
        "{A.Name} made one loop, but the second one slipped away.",
    )
    s.add(
        "\"I can't do it!\" {A.he} cried, and threw the shoe on the floor.",
        "\"It's too hard!\" {A.name} said crossly.",
    )
    if s.chance(0.5):
        s.add(
            "\"Try again tomorrow,\" {H.name} said. \"Your fingers are still learning.\"",
            "\"Let's take a break,\" said {H.name}, \"and practice on this old shoe.\"",
        )
        s.add(
            "{A.Name} practiced every day on an old shoe tied to a chair.",
            "All week, {A.name} practiced, before breakfast and after dinner.",
        )
        s.add(
            "On Friday, {A.he} made two loops, crossed them and pulled, and there was a bow!",
            "Then one morning, both bunny ears stayed up, and {A.he} pulled them tight.",
        )
    else:
        s.add(
            "{H.Name} picked up the shoe. \"Slow down, one step at a time.\"",
            "{H.Name} sat next to {A.him} and went very, very slowly.",
        )
        s.add(
            "This time, {A.name} went slowly: loop, loop, cross, tuck, pull.",
            "{A.Name} took a breath and tried again, one step at a time.",
        )
        s.add(
            "A wobbly bow sat on top of the shoe.",
            "There it was: a real bow, a bit lopsided, but a bow.",
        )
    s.add(
        "\"I did it! I tied my own shoe!\" {A.name} shouted.",
        "\"Look!\" {A.name} said, pointing at {A.his} feet with a giant grin.",
    )
    _close(s, A, [
        "After that, {A.name} tied {A.his} shoes every single day, and sometimes other people's too.",
        "{A.Name} untied it just so {A.he} could tie it again.",
    ], "{A.Name} learned that practice makes hard things easy.")


def plot_lost_mitten(s: Story) -> None:
    A = s.kid()
    P = _gpar(s, A)
    col = s.pick(["red", "green", "blue", "purple", "yellow", "orange"])
    maker = s.pick(["Grandma", "Aunt May", "Grandpa", "Great-Grandma"])
    s.ctx.update(A=A, P=P, col=col, maker=maker)
    s.add(
        "It had snowed all night, and {A.name}'s whole street was white.",
        "{A.Name} woke up to deep, soft snow outside the window.",
        "On the first snowy day of winter, {A.name} put on {A.his} boots and {A.his} {col} mittens.",
    )
    s.add(
        "{A.His} mittens were special, because {maker} had knitted them.",
        "The {col} mittens were a gift from {maker}.",
    )
    s.add(
        "{A.Name} built a snowman, threw snowballs and made a snow angel.",
        "{A.He} rolled a giant snowball and made a fort by the hedge.",
    )
    s.add(
        "When {A.he} went inside, {A.he} had only one mitten!",
        "At lunchtime, {A.name} pulled off {A.his} mittens. But there was just one.",
    )
    s.add(
        "\"Oh no! {maker} made it for me!\" cried {A.name}.",
        "{A.Name} felt a lump in {A.his} throat.",
    )
    s.add(
        "{P.Name} and {A.name} went back out to look.",
        "{A.Name} pulled {A.his} boots back on and went to search.",
    )
    if s.chance(0.5):
        s.add(
            "They looked by the snowman, by the fort and along the fence.",
            "{A.He} looked in the snow angel and all around the hedge.",
        )
        s.add(
            "Then {A.name} laughed. The snowman was wearing a {col} mitten on its stick hand!",
            "Then {A.he} saw a bit of {col} poking out of the snowball pile.",
        )
    else:
        s.add(
            "It was nowhere to be found, and new snow was starting to fall.",
            "They looked and looked, but the snow had covered everything.",
        )
        s.add(
            "The next morning, there was the mitten, hanging on the neighbor's gate.",
            "That afternoon, a little girl from next door knocked. She was holding a {col} mitten.",
        )
        s.add(
            "\"Is this yours?\" the neighbor asked. \"I found it in the snow.\"",
            "\"Thank you!\" {A.name} said, hugging the soggy mitten.",
        )
    s.add(
        "The mitten was cold and wet, so they dried it on the warm radiator.",
        "{A.Name} put it by the fire to dry, right next to its twin.",
    )
    _close(s, A, [
        "After that, {P.name} sewed a long string between the mittens, and they never got lost again.",
        "{A.Name} sent {maker} a drawing of the snowman wearing the mitten.",
    ])


def plot_rainy_day(s: Story) -> None:
    A = s.kid()
    B = _sibling(s, s.pick(["little brother", "little sister", "big brother", "big sister"]))
    P = _gpar(s, A)
    g1, g2 = s.rng.sample(RAIN_GAMES, 2)
    s.ctx.update(A=A, B=B, P=P, g1=g1, g2=g2, Bref=_ref(A, B))
    s.add(
        "Rain drummed on the windows all Saturday morning, and {A.name} and {Bref} were stuck inside.",
        "{A.Name} and {Bref} wanted to go to the park, but it was pouring with rain.",
        "It was raining cats and dogs, and {A.name} was stuck inside with {Bref}.",
    )
    s.add(
        "\"I'm so bored,\" {A.name} groaned, flopping on the sofa.",
        "\"There's nothing to do,\" {A.name} sighed, pressing {A.his} nose to the window.",
        "{A.Name} and {B.name} watched the drops race down the glass.",
    )
    s.add(
        "\"Why don't you {g1}?\" suggested {P.name}.",
        "{P.Name} had an idea. \"Let's {g1}!\"",
    )
    if s.chance(0.5):
        if s.chance(0.5):
            s.add("But {B.name} wanted to {g2} instead, and they began to squabble.")
            s.add("\"Why not do both?\" said {P.name}. \"One before lunch and one after.\"")
        else:
            s.add("But {A.name} and {B.name} both wanted to go first, and they began to squabble.")
            s.add("\"Take turns,\" said {P.name}. \"{B.Name} goes first, then {A.name}.\"",
                  "\"Let's flip a coin to see who goes first,\" said {P.name}.")
        s.add(
            "So that's what they did, and they both had fun.",
            "That seemed fair, so they shook hands.",
        )
    else:
        s.add(
            "{A.Name} found everything they needed in the cupboard under the stairs.",
            "They cleared the living room floor and got started.",
        )
        s.add(
            "{B.Name} laughed so much that {B.he} got the hiccups.",
            "It was messy and noisy and lots of fun.",
        )
        s.add(
            "Later, they decided to {g2} too.",
            "After a snack of {snack}, they played until the afternoon.",
            snack=s.pick(["cheese toast", "warm cocoa", "apple slices", "popcorn"]),
        )
    s.add(
        "By the time the rain stopped, {A.name} almost wished it hadn't.",
        "When the sun came out, there was a big rainbow over the rooftops.",
        "At teatime, {A.name} realized {A.he} hadn't been bored for hours.",
    )
    _close(s, A, [
        "\"Rainy days are the best,\" said {A.name}.",
        "Then they put on boots and jumped in every puddle on the street.",
    ])


def plot_blanket_fort(s: Story) -> None:
    A = s.kid()
    B = s.kid() if s.chance(0.5) else _sibling(s, s.pick(["little brother", "little sister"]))
    P = _gpar(s, A)
    f1, f2, f3 = s.rng.sample(FORT_THINGS, 3)
    s.ctx.update(A=A, B=B, P=P, f1=f1, f2=f2, f3=f3, Bref=_ref(A, B))
    s.add(
        "{A.Name} and {Bref} decided to build a fort in the living room.",
        "\"Let's build the biggest fort in the world!\" {A.name} said to {Bref}.",
        "After dinner, {A.name} had a great idea. \"Let's make a blanket fort!\" {A.he} told {Bref}.",
    )
    s.add(
        "They dragged in {f1}, {f2} and {f3}.",
        "They collected {f1} and {f2} from every room in the house.",
    )
    s.add(
        "{A.Name} draped a big blanket over two chairs, and {B.name} held up the middle.",
        "They pinned the sheets to the sofa and made a door flap.",
    )
    if s.chance(0.5):
        s.add(
            "But when {B.name} crawled inside, the whole thing fell down!",
            "Whoosh! The roof slid off and landed on their heads.",
        )
        s.add(
            "\"It keeps falling!\" {B.name} wailed.",
            "{A.Name} laughed from under the blanket. \"Let's try again!\"",
        )
        s.add(
            "This time, they used heavy books to hold the corners down.",
            "{P.Name} showed them how to tuck the sheet under the cushions so it stayed put.",
        )
        s.add("Now it was strong and cozy.", "It stayed up, and it was perfect!")
    else:
        s.add(
            "Inside, it was dim and cozy, like a cave.",
            "Inside, everything was quiet and soft and secret.",
        )
    s.add(
        "They put a sign on the front that said \"No grown-ups!\"",
        "{A.Name} shone the flashlight on the ceiling and made shadow animals.",
        "They told stories and ate snacks in the glow of the flashlight.",
    )
    if s.chance(0.5):
        s.add(
            "\"Knock, knock,\" said {P.name}. \"Is there room for one more?\"",
            "{P.Name} crawled halfway in and asked, \"Is there room for me?\"",
        )
        s.add(
            "\"Only if you bring cocoa!\" said {A.name}.",
            "\"Yes, but you have to whisper,\" {A.name} said.",
        )
    else:
        s.add(
            "{P.Name} peeked in. \"What's the password?\"",
            "\"May I come in?\" asked {P.name}. \"What's the password?\"",
        )
        s.add(
            "\"The password is cookies,\" {B.name} giggled.",
            "\"Say please with sprinkles on top,\" {A.name} said.",
        )
    _close(s, A, [
        "That night, they fell asleep in the fort, snug as two bugs in a rug.",
        "They left the fort up for three whole days.",
    ])


def plot_class_pet(s: Story) -> None:
    A = s.kid()
    T = _grownup(s, "teacher")
    P = _gpar(s, A)
    kind, home, food = s.pick(CLASS_PETS)
    pet = Who(s._fresh(PET_NAMES), s.pick(["he", "she"]), kind)
    s.ctx.update(A=A, T=T, P=P, pet=pet, home=home, food=food)
    s.add(
        "{A.Name}'s class had a {pet.kind} named {pet.name}.",
        "In {T.name}'s classroom, there lived a {pet.kind} called {pet.name}.",
    )
    s.add(
        "Every weekend, one child took {pet.name} home, and this Friday it was {A.name}'s turn!",
        "\"{A.Name}, would you like to look after {pet.name} this weekend?\" asked {T.name}.",
    )
    s.add(
        "{A.Name} carried the cage home very carefully. Inside, {pet.name} had {home} and a water bottle.",
        "{T.Name} gave {A.him} a list: fresh water, {food}, and lots of gentle love.",
    )
    s.add(
        "{A.Name} gave {pet.name} {food} and fresh water.",
        "At home, {A.name} put {pet.name} on the table where {pet.he} could see everybody.",
    )
    if s.chance(0.5):
        s.add(
            "On Saturday morning, the cage door was open, and {pet.name} was gone!",
            "Then, oh no! {A.Name} had left the little door open, and the cage was empty.",
        )
        s.add(
            "\"What will {T.name} say?\" {A.name} cried.",
            "{A.Name} looked under the sofa, behind the curtains and in the laundry basket.",
        )
        s.add(
            "{P.Name} put some {food} on the floor, and they waited very quietly.",
            "\"Let's sit still and listen,\" whispered {P.name}.",
        )
        s.add(
            "Soon a little nose poked out from under the bookshelf.",
            "After a while, they heard a tiny rustle, and {pet.name} came out to eat.",
        )
        s.add(
            "{A.Name} gently scooped {pet.him} up and checked the door twice.",
            "From then on, {A.name} always checked the cage door.",
        )
    else:
        s.add(
            "{A.Name} read {pet.name} a story and showed {pet.him} around the house.",
            "{A.Name} drew pictures of {pet.name} for a diary about the weekend.",
        )
        s.add(
            "{pet.Name} nibbled {food} and seemed very happy.",
            "Even {A.his} grumpy cat came to look and purred.",
        )
    s.add(
        "On Monday, {A.name} told the class all about the weekend.",
        "On Monday, {A.name} brought {pet.name} back safe and sound.",
    )
    _close(s, A, [
        "\"Thank you for taking such good care of {pet.him},\" said {T.name}.",
        "{T.Name} gave {A.name} a gold star for being so responsible.",
    ])


def plot_music_lesson(s: Story) -> None:
    A = s.kid()
    M = _grownup(s, "music teacher")
    inst = s.pick(INSTRUMENTS)
    song = s.pick(["Twinkle, Twinkle, Little Star", "Happy Birthday", "Hot Cross Buns",
                   "a little spring song", "Row, Row, Row Your Boat"])
    s.ctx.update(A=A, M=M, inst=inst, song=song)
    s.add(
        "{A.Name} started {inst} lessons with {M.called}.",
        "Every Wednesday, {A.name} went to see {M.called}, for a {inst} lesson.",
        "{A.Name} had always wanted to play the {inst}, so {A.he} started lessons with {M.called}.",
    )
    s.add(
        "At first, the {inst} made sounds like a squeaky door.",
        "The first time {A.he} tried, it sounded like a goose with a cold.",
    )
    s.add(
        "\"That's terrible!\" {A.name} said, and {A.he} laughed and frowned at the same time.",
        "\"Am I ever going to be good at this?\" {A.name} asked.",
    )
    s.add(
        "\"Everyone starts like that,\" said {M.name}. \"Play a little every day.\"",
        "{M.Name} smiled. \"Ten minutes a day, and you'll be surprised.\"",
    )
    if s.chance(0.5):
        s.add(
            "But {A.name} didn't practice, and {A.he} played outside instead.",
            "All week, the {inst} sat in its case, and {A.name} forgot about it.",
        )
        s.add(
            "At the next lesson, {A.his} fingers got muddled and the notes came out wrong.",
            "At the next lesson, {A.name} couldn't play a single line.",
        )
        s.add(
            "{A.He} felt embarrassed, so that week {A.he} practiced every day after school.",
            "\"I'll try harder,\" {A.name} promised, and this time {A.he} did.",
        )
    else:
        s.add(
            "{A.Name} practiced every day after school, even when {A.he} {A.was} tired.",
            "Every evening, {A.name} played while the cat listened from the windowsill.",
        )
    s.add(
        "Slowly the squeaks turned into notes, and the notes turned into a tune.",
        "Bit by bit, {A.name} got better.",
    )
    s.add(
        "At the end of the month, {A.he} played {song} for the whole family.",
        "One evening, {A.name} played {song} all the way through without a mistake.",
    )
    s.add(
        "Everyone clapped, and Grandpa shouted, \"More! More!\"",
        "\"Bravo!\" cheered {A.his} family.",
    )
    _close(s, A, ["{A.Name} took a bow and grinned from ear to ear.",
                  "{A.Name} couldn't wait to learn the next song."],
           "{A.Name} learned that a little practice every day goes a long way.")


def plot_sibling_advice(s: Story) -> None:
    A = s.kid()
    S = _sibling(s, s.pick(["big sister", "big brother"]))
    worry, advice, result = s.pick(SIBLING_ADVICE)
    s.ctx.update(A=A, S=S, worry=worry, advice=s.fill(advice, his=A.his),
                 result=s.fill(result, his=A.his))
    s.add(
        "{A.Name} was worried about {worry}.",
        "The night before {worry}, {A.name} couldn't sleep.",
        "{A.Name} had a knot in {A.his} tummy about {worry}.",
    )
    s.add(
        "{A.His} {S.kind}, {S.name}, knocked on the door. \"Are you okay?\"",
        "{S.Name}, {A.his} {S.kind}, saw {A.his} frown. \"What's up?\"",
    )
    s.add(
        "\"What if I mess it up?\" {A.name} whispered.",
        "\"I'm scared,\" {A.name} said. \"What if everyone laughs?\"",
    )
    s.add(
        "{S.Name} sat down on the bed. \"I was scared too, when I was your age.\"",
        "\"You know what helped me?\" said {S.name}.",
    )
    s.add(
        "\"Try this,\" {S.he} said. \"{A_advice}.\"",
        "{S.He} told {A.him} a secret trick: \"{A_advice}.\"",
        A_advice=_cap(s.ctx["advice"]),
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} tried it that very night, and it seemed to help.",
            "They practiced together until {A.name} was yawning.",
        )
    else:
        s.add(
            "\"That sounds silly,\" said {A.name}, but {A.he} decided to try it anyway.",
            "{A.Name} wasn't sure it would work, but {A.he} promised to try.",
        )
    s.add(
        "The next day, {A.name} remembered {S.name}'s advice, and {A.he} {result}.",
        "When the moment came, {A.name} did just what {S.name} had said, and {A.he} {result}.",
    )
    s.add(
        "\"It worked!\" {A.he} told {S.name} that evening.",
        "{A.Name} ran home and gave {S.name} a big hug.",
    )
    if s.chance(0.5):
        s.add(
            "\"I knew you could do it,\" said {S.name}.",
            "{S.Name} ruffled {A.his} hair and said, \"See? You were brave all by yourself.\"",
        )
    _close(s, A, [
        "{A.Name} decided that {S.name} was the best {S.kind} in the world.",
        "One day, {A.name} would pass the advice on to someone else.",
    ])


def plot_neighbor_help(s: Story) -> None:
    A = s.kid()
    N = _grownup(s, "neighbor")
    P = _gpar(s, A)
    trouble, fix = s.pick(NEIGHBOR_JOBS)
    s.ctx.update(A=A, N=N, P=P)
    s.ctx.update(trouble=s.fill(trouble), fix=s.fill(fix))
    s.add(
        "{N.Name} lived next door to {A.name}.",
        "Next door to {A.name} lived {N.name}, who had a garden full of sunflowers.",
        "{A.Name}'s neighbor, {N.name}, always waved from the porch.",
    )
    s.add(
        "One afternoon, {trouble}, and {A.name} didn't know what to do.",
        "On Saturday, {trouble}. {A.Name} tried and tried, but it was no use.",
    )
    s.add(
        "\"Need a hand?\" called {N.name} over the fence.",
        "{N.Name} saw {A.name} and came over. \"What seems to be the trouble?\"",
    )
    s.add(
        "{N.Name} {fix}.",
        "In no time at all, {N.name} {fix}.",
    )
    s.add(
        "\"Thank you so much!\" said {A.name}.",
        "\"You're amazing!\" {A.name} said.",
    )
    s.add(
        "\"That's what neighbors are for,\" {N.name} said.",
        "\"Anytime,\" said {N.name} with a wink.",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} wanted to say thank you in a special way.",
            "{A.Name} thought about how to help {N.name} back.",
        )
        if s.chance(0.5):
            s.add(
                "{A.He} drew a picture of {N.name}'s sunflowers and slipped it in the mailbox.",
                "{A.He} made a thank-you card with a big sunflower on the front.",
            )
            s.add(
                "{N.Name} was so happy that {N.he} put it on {N.his} fridge.",
                "{N.Name} kept it on {N.his} fridge for a whole year.",
            )
        else:
            s.add(
                "{A.Name} and {P.name} baked a tray of oat cookies and took them next door.",
                "{A.He} picked a bunch of daisies and left them on {N.name}'s doorstep.",
            )
            s.add(
                "\"Well, aren't you kind!\" {N.name} said, smiling.",
                "\"What a lovely surprise,\" said {N.name}.",
            )
    else:
        s.add(
            "A week later, {N.name} dropped a bag of groceries, and oranges rolled down the street.",
            "A few days later, {N.name}'s cat was stuck on the shed roof, meowing.",
        )
        s.add(
            "{A.Name} ran to help right away.",
            "This time, it was {A.name} who said, \"Need a hand?\"",
        )
    _close(s, A, [
        "After that, {A.name} and {N.name} were good friends.",
        "{A.Name} learned that good neighbors look out for each other.",
        "Now they helped each other all the time.",
    ])


def plot_sleepover(s: Story) -> None:
    A = s.kid()
    B = s.kid()
    P = Who(f"{B.name}'s dad", "he", "dad")
    s.ctx.update(A=A, B=B, P=P)
    s.add(
        "{A.Name} was going to sleep at {B.name}'s house for the very first time.",
        "On Friday night, {A.name} packed {A.his} pajamas and {A.his} old teddy for a sleepover at {B.name}'s house.",
        "\"Can I have a sleepover at {B.name}'s?\" {A.name} had begged, and finally the night came.",
    )
    s.add(
        "They ate pizza on the floor and watched a film about a dog.",
        "They played board games and had a pillow fight.",
    )
    s.add(
        "But when the lights went out, the room looked strange.",
        "At bedtime, {B.name}'s house was much quieter than {A.his} own.",
    )
    s.add(
        "{A.Name} missed {A.his} own bed and {A.his} own family.",
        "\"I want to go home,\" {A.name} whispered into {A.his} pillow.",
    )
    if s.chance(0.5):
        s.add(
            "{B.Name} heard {A.him} sniffle. \"Are you homesick?\"",
            "{B.Name} sat up. \"Do you miss your mom?\"",
        )
        s.add(
            "{A.Name} nodded. \"A little.\"",
            "\"Yes,\" said {A.name}. \"Is that silly?\"",
        )
        s.add(
            "\"I felt like that at my cousin's house,\" said {B.name}. \"Want to hold my flashlight?\"",
            "\"It's not silly,\" {B.name} said, and started telling funny stories in the dark.",
        )
        s.add(
            "Soon they were giggling under the covers, and {A.name} forgot all about feeling sad.",
            "Before long, {A.name} was laughing so hard {A.he} forgot to be homesick.",
        )
    else:
        s.add(
            "{A.Name} tiptoed to the kitchen, where {P.name} was washing the dishes.",
            "{P.Name} heard a sniffle and came to check.",
        )
        s.add(
            "\"Would you like to call home and say good night?\" {P.name} asked.",
            "\"Lots of people feel homesick,\" {P.name} said gently. \"Let's call your family.\"",
        )
        s.add(
            "{A.Name} talked to {A.his} mom on the phone, and {A.his} heart felt lighter.",
            "Hearing a familiar voice made everything better.",
        )
    s.add(
        "In the morning, they had pancakes with syrup.",
        "{A.Name} woke up to the smell of pancakes and bacon.",
    )
    _close(s, A, [
        "\"Can I come again next week?\" {A.name} asked.",
        "{A.Name} went home tired and proud. {A.He} had done it!",
    ])


def plot_forgot_lunch(s: Story) -> None:
    A = s.kid()
    B = s.kid()
    P = _gpar(s, A)
    T = _grownup(s, "teacher")
    thing = s.pick(SCHOOL_THINGS)
    snack, snack2 = s.rng.sample(SNACKS, 2)
    s.ctx.update(A=A, B=B, P=P, T=T, thing=thing, snack=snack, snack2=snack2)
    s.add(
        "{A.Name} was late for school, and {A.he} ran out of the door in a hurry.",
        "On Tuesday morning, {A.name} woke up late and had to rush.",
        "\"Hurry, or we'll miss the bell!\" {P.name} called, and {A.name} grabbed {A.his} coat.",
    )
    s.add(
        "{A.He} packed {A.his} {thing}, {A.his} homework and {A.his} library card.",
        "{A.He} remembered {A.his} {thing} and even {A.his} gym shoes.",
    )
    s.add(
        "But at lunchtime, {A.his} lunch box wasn't in {A.his} backpack.",
        "When the lunch bell rang, {A.name} opened {A.his} bag. No lunch box!",
    )
    s.add(
        "\"I left it on the kitchen table,\" {A.name} groaned.",
        "{A.Name}'s tummy rumbled loudly, and {A.his} eyes filled with tears.",
    )
    if s.chance(0.5):
        s.add(
            "{B.Name} sat down next to {A.him}. \"You can share my lunch,\" {B.he} said.",
            "\"Here,\" said {B.name}, pushing over half of {B.his} lunch. \"I have lots.\"",
        )
        s.add(
            "{B.Name} had {snack}, and {B.he} gave half to {A.name}.",
            "They shared {snack} and told each other silly stories.",
        )
        s.add(
            "\"Thank you,\" {A.name} said. \"Tomorrow I'll bring something for you.\"",
            "\"You're a real friend,\" {A.name} said with {A.his} mouth full.",
        )
        s.add(
            "The next day, {A.name} packed an extra treat for {B.name}.",
            "The next day, {A.name} brought two cookies, one for {A.him}self and one for {B.name}.".replace("{A.him}self", "{A.himself}"),
        )
    else:
        s.add(
            "{A.He} told {T.called}, what had happened.",
            "{T.Name}, {A.his} teacher, saw {A.his} sad face and asked what was wrong.",
        )
        s.add(
            "{T.Name} called home, and ten minutes later {P.name} arrived, out of breath.",
            "\"Let's phone home,\" said {T.name}, and soon {P.name} came with the lunch box.",
        )
        s.add(
            "Inside the lunch box, {A.he} found {snack2} and a little note that said, \"Have a great day!\"",
            "{A.He} ate {snack2}, and lunch had never tasted so good.",
        )
    _close(s, A, [
        "From then on, {A.name} packed {A.his} lunch box the night before.",
        "{A.Name} stuck a note on the door that said, \"LUNCH!\"",
    ], "{A.Name} learned that getting ready the night before saves a lot of trouble.")


def plot_getting_dressed(s: Story) -> None:
    A = s.kid()
    P = _gpar(s, A)
    cold = s.chance(0.5)
    s.ctx.update(A=A, P=P)
    if cold:
        s.ctx.update(wear="sandals and a sun hat", need="a warm coat and mittens",
                     weather="cold and frosty", feel_bad="shivering", extra="woolly hat")
    else:
        s.ctx.update(wear="rain boots, a raincoat and a woolly scarf", need="shorts and a T-shirt",
                     weather="hot and sunny", feel_bad="sweating", extra="sun hat")
    s.add(
        "{A.Name} wanted to dress all by {A.himself} today.",
        "\"I can choose my own clothes,\" {A.name} said on Saturday morning.",
        "{A.Name} opened {A.his} dresser and pulled out everything {A.he} liked best.",
    )
    c = s.rng.sample(CLOTHES_HOME, 3)
    s.add(
        "{A.He} tried on {c0}, then {c1}, then {c2}.",
        "{A.His} bed was soon covered in {c0}, {c1} and {c2}.",
        c0=c[0], c1=c[1], c2=c[2],
    )
    s.add(
        "{A.He} came downstairs in {wear}.",
        "{A.He} put on {wear}, and {A.he} twirled in front of the mirror.",
    )
    s.add(
        "\"Have you looked outside?\" asked {P.name}. \"It's {weather} today.\"",
        "{P.Name} raised an eyebrow. \"Those are interesting clothes for a day that's {weather}.\"",
    )
    s.add(
        "\"I like these,\" {A.name} said, crossing {A.his} arms.",
        "\"But these are my favorites!\" {A.name} said.",
    )
    if s.chance(0.5):
        s.add(
            "{P.Name} didn't argue. {P.He} just put {need} in a bag.",
            "\"All right,\" said {P.name}, and quietly packed {need} in the car.",
        )
        s.add(
            "At the park, {A.name} was soon {feel_bad}.",
            "Ten minutes later, {A.name} was {feel_bad} by the swings.",
        )
        s.add(
            "\"Do you have something else I could wear?\" {A.he} asked in a small voice.",
            "{A.Name} came back to the bench. \"Maybe you were right,\" {A.he} said.",
        )
        s.add(
            "{P.Name} smiled and opened the bag.",
            "{P.Name} pulled out {need}, and {A.name} changed behind a tree.",
        )
    else:
        s.add(
            "{P.Name} had an idea. \"Let's look out the window together first.\"",
            "\"Let's check the weather like a weather reporter,\" said {P.name}.",
        )
        s.add(
            "{A.Name} pressed {A.his} hand on the glass and thought about it.",
            "{A.Name} stepped onto the porch for a second and hopped right back in.",
        )
        s.add(
            "\"Okay, maybe I need {need},\" {A.name} said. \"But I'm keeping the {extra}!\"",
            "So {A.name} changed into {need}, but kept {A.his} favorite {extra} on top.",
        )
    _close(s, A, [
        "After that, {A.name} always checked the sky before choosing {A.his} clothes.",
        "{A.Name} played outside all day, just right for the weather.",
    ], "{A.Name} learned to dress for the weather.")


def plot_hide_and_seek(s: Story) -> None:
    A = s.kid()
    B = _sibling(s, s.pick(["big sister", "big brother", "little sister", "little brother"])) \
        if s.chance(0.5) else s.kid()
    room, spot = s.pick(HIDING)
    room2, spot2 = s.pick([h for h in HIDING if h[0] != room])
    s.ctx.update(A=A, B=B, room=room, spot=spot, room2=room2, spot2=spot2, Bref=_ref(A, B))
    s.add(
        "{A.Name} and {Bref} were playing hide and seek in the house.",
        "\"Let's play hide and seek!\" said {A.name} to {Bref}.",
        "It was too windy to go out, so {A.name} and {Bref} played hide and seek.",
    )
    s.add(
        "{B.Name} covered {B.his} eyes and counted to twenty.",
        "\"One, two, three...\" {B.name} counted, facing the wall.",
    )
    s.add(
        "{A.Name} tiptoed into the {room} and hid {spot}.",
        "{A.Name} crept into the {room}, where the best place was {spot}.",
    )
    s.add(
        "\"Ready or not, here I come!\" called {B.name}.",
        "\"Coming to find you!\" {B.name} shouted.",
    )
    s.add(
        "{B.Name} looked in the {room2}, {spot2}, but nobody was there.",
        "{A.Name} heard footsteps go past, and {A.he} held {A.his} breath.",
    )
    if s.chance(0.5):
        s.add(
            "Then some dust tickled {A.his} nose.",
            "It was dusty there, and {A.his} nose began to twitch.",
        )
        s.add(
            "\"Ah... ah... ACHOO!\" {A.name} sneezed.",
            "{A.He} sneezed the biggest sneeze of {A.his} life.",
        )
        s.add(
            "\"Found you!\" {B.name} laughed, pulling back the hiding place.",
            "\"Bless you!\" said {B.name}, and then, \"Found you!\"",
        )
        s.add("Now it was {A.name}'s turn to count.", "They both laughed so hard they fell over.")
    else:
        s.add(
            "{A.Name} waited and waited, and because it was warm and quiet, {A.his} eyes began to close.",
            "{A.Name} waited so long that {A.he} fell asleep.",
        )
        s.add(
            "\"Where are you? I give up!\" {B.name} called at last.",
            "After a long time, {B.name} called, \"I give up! You win!\"",
        )
        s.add(
            "When {A.name} woke up and crawled out, {B.name} gave {A.him} a big hug.",
            "\"Did I win?\" {A.name} yawned as {A.he} crawled out.",
        )
        s.add(
            "\"You're the hide and seek champion,\" said {B.name}.",
            "\"You're the best hider ever,\" {B.name} said, \"but next time, don't fall asleep!\"",
        )
    _close(s, A, [
        "The {room} became {A.name}'s secret best hiding place.",
        "They played again and again until dinner was ready.",
    ])


def plot_laundry_day(s: Story) -> None:
    A = s.kid()
    P = _gpar(s, A)
    item = s.pick(["red sock", "new red T-shirt", "purple hoodie"])
    spot = s.pick(HOUSEHOLD)
    s.ctx.update(A=A, P=P, item=item, spot=spot)
    s.add(
        "On Sunday, it was laundry day, and {A.name} wanted to help.",
        "\"Can I help with the washing?\" {A.name} asked {P.name}.",
        "The laundry basket was overflowing, so {P.name} asked {A.name} to help.",
    )
    s.add(
        "{A.Name} carried the basket to the washing machine.",
        "{A.Name} sorted the clothes into two piles: whites and colors.",
    )
    if s.chance(0.5):
        s.add(
            "But a {item} was hiding in the white pile, and nobody saw it.",
            "{A.Name} didn't notice the {item} tangled in a white sheet.",
        )
        s.add(
            "When the machine stopped, all the white clothes were pink!",
            "Out came the washing, and every white sock and shirt had turned pink.",
        )
        s.add(
            "\"Oh no! I'm sorry,\" said {A.name}. \"It's all my fault.\"",
            "{A.Name} covered {A.his} mouth. \"Uh-oh. Everything is pink!\"",
        )
        s.add(
            "{P.Name} held up a pink vest and laughed. \"Well, I always wanted a pink shirt.\"",
            "\"It's only clothes,\" {P.name} said. \"Next time, we'll check every pocket and pile.\"",
        )
    else:
        s.add(
            "They hung the wet clothes on the line with clothespins.",
            "{A.Name} handed {P.name} clothespins while {P.he} hung up the shirts.",
        )
        s.add(
            "When it was time to match the socks, one sock was missing.",
            "Later, {A.name} matched the socks, but there was one sock left over.",
        )
        s.add(
            "\"Where do socks go?\" {A.name} wondered. \"Is there a sock monster?\"",
            "\"I think the washing machine eats socks,\" {A.name} whispered.",
        )
        s.add(
            "They found it under the {spot}, covered in dust.",
            "At last, {A.name} found it under the {spot}.",
        )
    s.add(
        "{A.Name} folded the towels into neat squares.",
        "Then they folded everything and put it away in the drawers.",
    )
    _close(s, A, [
        "\"You're a great helper,\" said {P.name}, and {A.name} felt ten feet tall.",
        "That night, {A.name}'s pajamas smelled fresh and clean.",
    ], "{A.Name} learned that chores can be fun when you do them together.")


def plot_grumpy_morning(s: Story) -> None:
    A = s.kid()
    P = _gpar(s, A)
    wrongs = [s.fill(w, he=A.he, his=A.his) for w in s.rng.sample(MORNING_WRONGS, 3)]
    s.ctx.update(A=A, P=P, g=s.pick(GRUMPY), b=s.pick(BETTER), w0=wrongs[0], w1=wrongs[1], w2=wrongs[2])
    s.add(
        "{A.Name} woke up feeling {g}.",
        "{A.Name} got out of bed on the wrong side.",
        "On Wednesday, {A.name} was as {g} as a bear with a sore paw.",
    )
    s.add(
        "First, {w0}. Then {w1}.",
        "Everything went wrong: {w0}, and {w1}.",
    )
    s.add(
        "And then {w2}!",
        "On top of all that, {w2}.",
    )
    s.add(
        "\"This is the worst day ever!\" {A.name} said, stamping {A.his} foot.",
        "\"Leave me alone!\" {A.name} grumbled, and pulled {A.his} hood over {A.his} face.",
    )
    if s.chance(0.5):
        s.add(
            "{P.Name} didn't get cross. {P.He} sat down on the floor next to {A.him}.",
            "{P.Name} knelt down. \"It sounds like you're feeling {g}.\"",
        )
        s.add(
            "\"Sometimes mornings are like that,\" {P.name} said. \"Want to take three big breaths with me?\"",
            "\"Sometimes mornings are just hard,\" said {P.name}. \"Let's breathe in slowly, like smelling a flower.\"",
        )
        s.add(
            "{A.Name} breathed in and out, in and out.",
            "{A.Name} breathed in, then blew out, and {A.his} shoulders went soft.",
        )
    elif s.chance(0.5):
        s.add(
            "{A.Name} stomped into the garden and sat under the apple tree.",
            "{A.Name} went out to the garden and kicked at the grass.",
        )
        s.add(
            "A little robin hopped up and tilted its head at {A.him}.",
            "A robin landed on the fence and sang a bright little song.",
        )
        s.add(
            "It was hard to stay {g} while the robin sang.",
            "Slowly, the {g} feeling began to melt away.",
        )
        s.add(
            "{A.Name} went back inside and said sorry for shouting.",
            "{A.He} went inside to find {P.name}. \"Sorry I was so {g},\" {A.he} said.",
        )
    else:
        s.add(
            "{A.Name} sat on the stairs and sulked for a long time.",
            "{A.Name} curled up in the armchair and sulked.",
        )
        s.add(
            "The family cat curled up on {A.his} lap and purred.",
            "The old dog padded over and rested its head on {A.his} knee.",
        )
        s.add(
            "It was hard to stay {g} with such a soft friend nearby.",
            "Slowly, the {g} feeling began to melt away.",
        )
        s.add(
            "{A.He} went to find {P.name}. \"Sorry I was so {g},\" {A.he} said.",
            "{A.Name} went to the kitchen and said sorry for shouting.",
        )
    s.add(
        "{P.Name} gave {A.him} a long hug.",
        "\"Shall we start this morning again?\" asked {P.name}.",
    )
    _close(s, A, [
        "By lunchtime, {A.name} felt {b}, and the day turned out fine.",
        "{A.Name} felt {b}. Even a soggy morning can have a sunny afternoon.",
    ], "{A.Name} learned that a bad morning doesn't have to mean a bad day.")


PLOTS: list[Callable[[Story], None]] = [
    plot_new_baby, plot_bath_time, plot_bedtime_stall, plot_wobbly_tooth, plot_haircut,
    plot_checkup, plot_bus_ride, plot_shopping_list, plot_make_card, plot_spilled_drink,
    plot_left_out, plot_jokes, plot_goldfish, plot_moving_house, plot_grandparents_visit,
    plot_library_book, plot_cooking_soup, plot_costume_party, plot_tying_shoes,
    plot_lost_mitten, plot_rainy_day, plot_blanket_fort, plot_class_pet, plot_music_lesson,
    plot_sibling_advice, plot_neighbor_help, plot_sleepover, plot_forgot_lunch,
    plot_getting_dressed, plot_hide_and_seek, plot_laundry_day, plot_grumpy_morning,
]
