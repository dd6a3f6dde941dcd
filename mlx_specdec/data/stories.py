"""A bundled, offline generator of short children's stories.

The StoryLM ladder is trained on text in the TinyStories register: simple
words, past tense, named characters, a problem and its resolution, a closing
line. This module writes such stories from a seed so that training, tests and
benchmarks work without any download.

A story is composed, not filled in: a plot (one of the PLOTS below) chains
sub-parts -- an opening, a setting, a problem, a choice, its consequence, an
ending and maybe a moral -- and each sub-part picks among several sentence
templates. The characters, the object and the place are drawn once per story
and stay fixed, so pronouns, names and objects agree from the first sentence
to the last. Where a plot offers a choice (share or not, stop to help or keep
running, tell the truth now or later) a branch is taken and every later
sentence follows that branch.

These are the generator's first 38 plots ("classic"); the sibling modules
plots_nature, plots_home, plots_town and plots_wonder add the rest, and
:mod:`mlx_specdec.data.generator` draws stories from all of them.
"""

from __future__ import annotations

import random
import re
from typing import Callable

# ---------------------------------------------------------------------------
# Lexicon. Plain space-separated strings keep the lists easy to read and edit.
# ---------------------------------------------------------------------------


def _words(s: str) -> list[str]:
    return s.split()


def _phrases(s: str) -> list[str]:
    return [p.strip() for p in s.split("|") if p.strip()]


GIRL_NAMES = _words(
    "Lily Mia Emma Sara Anna Lucy Ella Zoe Amy Sophie Chloe Grace Ruby Maya Nora Ava "
    "Isla Rosie Daisy Molly Lola Hannah Clara Alice Jane Kate Nina Tina Ivy Luna Stella "
    "Bella Hazel Julia Eva Leah Olivia Jenny Poppy Millie Elsie Fiona Greta Holly Iris "
    "June Lena Mary Nell Penny Rita Susie Tara Wendy Amara Layla Nadia Priya Sofia Mei "
    "Aisha Kiara Rosa Freya Abby Beth Cora Dora Emily Gemma Heidi Jade Kelly Lucia Megan "
    "Nadine Paula Rachel Sally Tessa Vera Willow Yasmin Zara"
)
BOY_NAMES = _words(
    "Tom Ben Max Jack Leo Tim Joe Jake Luke Noah Liam Oscar Ollie Finn Harry Henry Adam "
    "Ryan Dan Eli Theo Owen Toby Billy Bobby Danny Eddie Frank George Hugo Ivan Kevin Mark "
    "Nick Pete Ravi Omar Ali Raj Kofi Luis Mateo Diego Carlos Hiro Kenji Felix Arthur Oliver "
    "Jasper Milo Ted Sid Zack Will Paul Simon Bruno Caleb Dylan Ethan Gabe Isaac Jonah "
    "Kyle Louis Marco Nathan Peter Ross Sean Victor Wyatt Yusuf"
)
THEY_NAMES = _words(
    "Sam Alex Jo Riley Kai Robin Sky Charlie Jamie Jordan Taylor Quinn Rowan Avery Frankie Remy Ash River"
)
PET_NAMES = _words(
    "Buddy Spot Fluffy Whiskers Pip Hoppy Coco Bubbles Sunny Patch Biscuit Pepper Nutmeg "
    "Ziggy Dot Bean Button Mittens Shadow Snowy Rusty Honey Cookie Peanut Tweety Squeaky "
    "Bouncy Fuzzy Ginger Maple Pebble Scout Sparky Twinkle Waddles Wiggles Toffee Muffin "
    "Noodle Pickles Blue Socks Daisy Clover Acorn Berry Flash Misty Puddle Tiny Goldie"
)
# Animals that can be the hero or a friend: (singular, sound it makes or "").
ANIMALS = [
    ("bunny", ""), ("cat", "meow"), ("kitten", "meow"), ("dog", "woof"), ("puppy", "woof"),
    ("bear", "grr"), ("fox", ""), ("mouse", "squeak"), ("bird", "tweet"), ("duck", "quack"),
    ("frog", "ribbit"), ("owl", "hoot"), ("squirrel", ""), ("turtle", ""), ("pig", "oink"),
    ("cow", "moo"), ("horse", "neigh"), ("lamb", "baa"), ("goat", "baa"), ("elephant", ""),
    ("lion", "roar"), ("monkey", ""), ("giraffe", ""), ("zebra", ""), ("tiger", "roar"),
    ("hippo", ""), ("deer", ""), ("hedgehog", ""), ("raccoon", ""), ("beaver", ""),
    ("penguin", ""), ("seal", ""), ("whale", ""), ("dolphin", ""), ("butterfly", ""),
    ("bee", "buzz"), ("ant", ""), ("ladybug", ""), ("snail", ""), ("chick", "peep"),
    ("hen", "cluck"), ("goose", "honk"), ("parrot", ""), ("crab", ""), ("octopus", ""),
    ("koala", ""), ("panda", ""), ("kangaroo", ""), ("wolf", "howl"), ("badger", ""),
    ("otter", ""), ("mole", ""), ("crow", "caw"), ("swan", ""), ("pony", "neigh"),
    ("dragon", ""), ("dinosaur", "roar"), ("unicorn", ""), ("lizard", ""), ("rabbit", ""),
]
SMALL_ANIMALS = ["bird", "kitten", "puppy", "bunny", "duckling", "chick", "frog", "squirrel",
                 "hedgehog", "mouse", "turtle", "butterfly", "ladybug", "snail", "lamb",
                 "fawn", "baby owl", "baby fox", "little goat", "piglet"]

KID_ADJ = _words(
    "little small happy kind brave shy curious cheerful clever friendly gentle playful "
    "silly sweet quiet busy young smart helpful funny"
)
ANIMAL_ADJ = _words(
    "little small fluffy furry tiny happy kind brave shy curious friendly gentle playful "
    "silly sleepy quick spotted striped big old clever"
)

# (preposition, place). The preposition keeps "at the park" / "in the forest" natural.
PLACES = [
    ("at", "the park"), ("in", "the garden"), ("in", "the forest"), ("at", "the beach"),
    ("on", "the farm"), ("at", "the zoo"), ("by", "the lake"), ("by", "the river"),
    ("in", "the meadow"), ("on", "the hill"), ("at", "the playground"), ("at", "school"),
    ("at", "the library"), ("at", "the store"), ("at", "the market"), ("in", "the backyard"),
    ("in", "the kitchen"), ("in", "the barn"), ("by", "the pond"), ("in", "the field"),
    ("in", "the woods"), ("in", "town"), ("in", "the big city"), ("near", "the old cave"),
    ("on", "the mountain"), ("on", "a small island"), ("at", "the castle"),
    ("in", "the tree house"), ("at", "the bakery"), ("at", "the museum"), ("at", "the circus"),
    ("at", "the fair"), ("at", "the camp"), ("at", "the harbor"), ("in", "the valley"),
    ("in", "the jungle"), ("in", "the orchard"), ("in", "the yard"), ("on", "the street"),
    ("by", "the old bridge"), ("at", "the swimming pool"), ("in", "the flower shop"),
    ("at", "grandma's house"), ("at", "the toy store"), ("in", "the snowy hills"),
]
HOME_SPOTS = _phrases(
    "under the bed | behind the sofa | in the toy box | under the table | in the closet | "
    "behind the door | in the laundry basket | under a pillow | on the top shelf | "
    "in the garden | next to the stairs | in the bathtub | inside a boot | under the rug | "
    "in the car | behind the curtain | in the dog's bed | under a pile of leaves | "
    "in the sandbox | on the windowsill | inside the cupboard | in the backpack"
)

COLORS = _words("red blue green yellow pink purple orange brown white black gold silver gray")
TOYS = _phrases(
    "ball | kite | doll | teddy bear | toy car | toy train | wagon | bike | scooter | "
    "jump rope | puzzle | book | box of crayons | paint set | drum | whistle | balloon | "
    "robot | truck | toy boat | yo-yo | spinning top | bag of marbles | toy plane | "
    "toy dinosaur | magic wand | crown | cape | sled | rocket | bucket | shovel | "
    "music box | toy horse | rag doll | stuffed bunny | toy drum | little car | xylophone"
)
THINGS = _phrases(
    "hat | scarf | mitten | shoe | sock | backpack | lunch box | cup | spoon | blanket | "
    "pillow | shell | stone | feather | key | ring | necklace | bracelet | coin | map | "
    "box | basket | umbrella | lamp | clock | bell | ribbon | button | sticker | card | "
    "letter | picture | drawing | flower pot | jar | watch | bow | glove | boot | "
    "pencil | notebook | water bottle | bag | wallet | belt | comb | mirror"
)
TOY_ADJ = _words(
    "red blue green yellow pink purple orange shiny new old little big soft round "
    "sparkly striped spotted wooden tiny fuzzy bright"
)
FOODS = _phrases(
    "apple | banana | cookie | cake | pie | sandwich | carrot | piece of cheese | loaf of bread | "
    "cupcake | muffin | pancake | orange | pear | bunch of grapes | strawberry | peach | plum | "
    "slice of watermelon | bowl of berries | bag of popcorn | slice of pizza | bowl of soup | "
    "candy | lollipop | ice cream cone | jar of honey | cracker | donut | bowl of noodles | "
    "bowl of rice | egg | glass of milk | cup of juice | glass of lemonade | piece of toast | "
    "pumpkin | ear of corn | acorn | nut | cherry | lemon | tomato | potato | pretzel | waffle"
)
PLURAL_FOODS = _words(
    "cookies apples berries cupcakes muffins pancakes grapes cherries strawberries carrots "
    "crackers nuts acorns sandwiches donuts pretzels waffles peaches plums"
)
ACTIVITIES = _phrases(
    "play outside | run in the grass | jump in puddles | swim in the lake | dance | sing songs | "
    "draw pictures | paint | read books | climb trees | dig in the sand | build towers with blocks | "
    "ride {his} bike | fly kites | bake cookies | pick flowers | splash in the water | "
    "play hide and seek | chase butterflies | look at the stars | count the clouds | "
    "skip stones | play tag | play ball | collect shells | watch the birds | explore | "
    "tell jokes | make music | play with {his} toys | roll down the hill | blow bubbles | "
    "play in the snow | help in the garden | feed the ducks | make mud pies | play pretend | "
    "listen to stories | hop and skip | look for bugs | play dress up | stack cups"
)
FEELINGS_GOOD = _words("happy glad excited proud thankful cheerful calm hopeful joyful pleased")
FEELINGS_BAD = _words("sad scared worried upset lonely nervous grumpy angry afraid unhappy")
TIMES = _phrases(
    "One day | One morning | One sunny day | One sunny morning | One rainy day | "
    "One cold morning | One warm afternoon | One windy day | One evening | One summer day | "
    "One spring morning | One fall afternoon | One winter day | Last week | On Saturday | "
    "On Monday | Early one morning | One bright day | One snowy morning | One quiet evening"
)
FAIR_TIMES = [t for t in TIMES if not any(w in t for w in ("rainy", "snowy", "cold", "winter", "windy"))]
TOWN_ADJ = _words("small quiet busy happy sunny little green pretty old friendly cozy")
TOWN = _phrases("town | village | city | house | farm | forest | land | valley | neighborhood")
JOBS = _phrases(
    "teacher | doctor | baker | farmer | firefighter | police officer | mail carrier | nurse | "
    "pilot | artist | fisherman | builder | vet | librarian | cook | bus driver | zookeeper | "
    "gardener | painter | singer | dancer | clown | sailor | astronaut"
)
FEARS = [
    # (the thing, why it is scary, the brave act)
    ("the dark", "it was too dark to see", "turn off the light"),
    ("the big slide", "it was very tall", "climb up and slide down"),
    ("the water", "it looked so deep", "put {his} feet in the water"),
    ("the thunder", "it was so loud", "watch the storm from the window"),
    ("the big dog next door", "it barked so loud", "say hello to the dog"),
    ("the tall tree", "it was so high", "climb to the first branch"),
    ("the doctor", "{he} did not like shots", "sit on the big chair"),
    ("the old swing", "it went so high", "swing all by {himself}"),
    ("the waves", "they were so big", "run into the waves"),
    ("the spider in the corner", "it had so many legs", "look at the spider up close"),
    ("riding a bike", "{he} {was} afraid to fall", "ride down the path"),
    ("the big stage", "so many people were watching", "sing a song on the stage"),
    ("the new school", "{he} did not know anyone", "walk into the class"),
    ("the noisy vacuum", "it roared like a monster", "push the vacuum across the rug"),
    ("the deep snow", "{he} sank up to {his} knees", "jump into the snow"),
]
MUSIC = _phrases("piano | drum | flute | guitar | violin | trumpet | harp | horn | bell | xylophone")
FLOWERS = _words("roses tulips daisies sunflowers lilies violets poppies daffodils")
GAMES = _phrases("tag | hide and seek | catch | jump rope | hopscotch | ball | house | pirates | school")
PLAY_TIME = _phrases("all day | all afternoon | until dinner | until the sun went down | for a long time | all morning")

# ---------------------------------------------------------------------------
# Characters, things and the story builder
# ---------------------------------------------------------------------------

_PRONOUNS = {
    # he, him, his, hers, self, was, is, has, s (3rd person present -s), does
    "he": ("he", "him", "his", "his", "himself", "was", "is", "has", "s", "does"),
    "she": ("she", "her", "her", "hers", "herself", "was", "is", "has", "s", "does"),
    "they": ("they", "them", "their", "theirs", "themself", "were", "are", "have", "", "do"),
    "it": ("it", "it", "its", "its", "itself", "was", "is", "has", "s", "does"),
}


def _cap(s: str) -> str:
    for i, ch in enumerate(s):
        if ch.isalpha():
            return s[:i] + ch.upper() + s[i + 1:] if ch.islower() else s
    return s


def _article(phrase: str) -> str:
    if not phrase:
        return ""
    w = phrase.split()[0].lower()
    if w.startswith(("uni", "use", "one")):
        return "a"
    return "an" if w[0] in "aeiou" or w in ("hour", "honest") else "a"


class Who:
    """A character: a name and the pronouns every sentence about them uses."""

    def __init__(self, name: str, pron: str, kind: str, adj: str = "", sound: str = ""):
        self.name, self.kind, self.adj, self.sound = name, kind, adj, sound
        self.Name = _cap(name)
        (self.he, self.him, self.his, self.hers, self.himself, self.was, self.is_,
         self.has, self.s, self.does) = _PRONOUNS[pron]
        self.He, self.Him, self.His = _cap(self.he), _cap(self.him), _cap(self.his)
        # "a little girl", "a fluffy cat": used when the character is introduced
        phrase = f"{adj} {kind}" if adj else kind
        self.a = f"{_article(phrase)} {phrase}"
        self.the = f"the {kind}"
        self.The = _cap(self.the)
        self.vocative = name  # what others call them in dialogue
        # how a friend is first named: "Pip the mouse", or just "Lily" for a child
        self.called = name if kind in ("girl", "boy", "kid") else f"{name} the {kind}"


class Thing:
    """An object that stays the same object for the whole story."""

    def __init__(self, noun: str, adj: str = ""):
        self.noun, self.adj = noun, adj
        phrase = f"{adj} {noun}" if adj else noun
        self.phrase = phrase
        self.a = f"{_article(phrase)} {phrase}"
        self.the = f"the {phrase}"
        self.The = _cap(self.the)
        self.the_noun = f"the {noun}"


class Story:
    """Collects sentences; every template is formatted with the same context."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.lines: list[str] = []
        self.ctx: dict = {}
        self.used_names: set[str] = set()

    def pick(self, seq):
        return self.rng.choice(seq)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def fill(self, template: str, **kw) -> str:
        ctx = {**self.ctx, **kw} if kw else self.ctx
        return template.format_map(ctx)

    def add(self, *options: str, **kw) -> None:
        """Append one sentence chosen among `options`."""
        t = options[0] if len(options) == 1 else self.rng.choice(options)
        self.lines.append(_cap(self.fill(t, **kw)))

    def text(self) -> str:
        return " ".join(self.lines)

    # -- characters -------------------------------------------------------
    def _fresh(self, names: list[str]) -> str:
        for _ in range(20):
            n = self.rng.choice(names)
            if n not in self.used_names:
                break
        self.used_names.add(n)
        return n

    def kid(self) -> Who:
        r = self.rng.random()
        if r < 0.45:
            name, pron, kind = self._fresh(GIRL_NAMES), "she", "girl"
        elif r < 0.9:
            name, pron, kind = self._fresh(BOY_NAMES), "he", "boy"
        else:
            name, pron, kind = self._fresh(THEY_NAMES), "they", "kid"
        return Who(name, pron, kind, self.pick(KID_ADJ))

    def animal(self) -> Who:
        kind, sound = self.pick(ANIMALS)
        pron = "she" if kind in ("hen", "cow") else ("he" if self.rng.random() < 0.5 else "she")
        return Who(self._fresh(PET_NAMES), pron, kind, self.pick(ANIMAL_ADJ), sound)

    def character(self, p_animal: float = 0.25) -> Who:
        return self.animal() if self.chance(p_animal) else self.kid()

    def parent(self, child: Who) -> Who:
        role, pron = self.pick([("mom", "she"), ("dad", "he"), ("mom", "she"), ("dad", "he"),
                                ("grandma", "she"), ("grandpa", "he")])
        p = Who(f"{child.his} {role}", pron, role)
        p.vocative = _cap(role)
        return p

    def toy(self) -> Thing:
        return Thing(self.pick(TOYS), self.pick(TOY_ADJ))

    def thing(self) -> Thing:
        return Thing(self.pick(THINGS), self.pick(TOY_ADJ))


# ---------------------------------------------------------------------------
# Shared sub-parts: openings, settings, reactions, endings
# ---------------------------------------------------------------------------


def opening(s: Story, A: Who) -> None:
    """Introduce the hero, sometimes with a trait or a liking."""
    s.add(
        "Once upon a time, there was {A.a} named {A.name}.",
        "Once upon a time, there was {A.a} named {A.name}.",
        "Once upon a time, in a {tadj} {town}, there lived {A.a} named {A.name}.",
        "There was once {A.a} called {A.name}.",
        "Once there was {A.a} named {A.name}.",
        "There was {A.a} named {A.name} who lived in a {tadj} {town}.",
        "Once upon a time, {A.a} named {A.name} lived in a {tadj} {town}.",
        tadj=s.pick(TOWN_ADJ), town=s.pick(TOWN), time=s.pick(TIMES),
    )
    if s.chance(0.6):
        act = s.fill(s.pick(ACTIVITIES), his=A.his)
        s.add(
            "{A.He} loved to {act}.",
            "{A.He} liked to {act} every day.",
            "{A.Name} liked to {act} more than anything.",
            "Every day, {A.name} wanted to {act}.",
            "{A.His} favorite thing to do was to {act}.",
            act=act,
        )


def go_somewhere(s: Story, A: Who, prep: str, place: str, with_: Who | None = None) -> None:
    time = s.pick(FAIR_TIMES)
    if with_ is None:
        s.add(
            "{time}, {A.name} went to play {prep} {place}.",
            "{time}, {A.name} was playing {prep} {place}.",
            "{time}, {A.he} went {prep} {place} to have fun.",
            "{time}, {A.name} walked to {place}.".replace("{prep} ", ""),
            time=time, prep=prep, place=place,
        )
    else:
        s.add(
            "{time}, {A.name} and {B.name} went to play {prep} {place}.",
            "{time}, {A.name} went {prep} {place} with {B.name}.",
            "{time}, {A.name} and {A.his} friend {B.name} were playing {prep} {place}.",
            time=time, prep=prep, place=place, B=with_,
        )


def weather_line(s: Story) -> None:
    s.add(
        "The sun was shining and the birds were singing.",
        "It was a {w} day, and the sky was {c}.",
        "The air was {w} and the grass was green.",
        "The wind was soft and the flowers smelled sweet.",
        "It was a {w} day.",
        w=s.pick(["sunny", "warm", "bright", "nice", "beautiful", "lovely"]),
        c=s.pick(["blue", "clear", "bright blue", "full of white clouds"]),
    )


def feel(s: Story, who: Who, good: bool) -> None:
    f = s.pick(FEELINGS_GOOD if good else FEELINGS_BAD)
    s.add(
        "{W.Name} felt {f}.",
        "{W.Name} {W.was} very {f}.",
        "{W.Name} {W.was} so {f}.",
        W=who, f=f,
    )


GENERIC_ENDINGS = _phrases(
    "And they all lived happily ever after. | "
    "It was the best day ever. | "
    "{A.Name} smiled all the way home. | "
    "That night, {A.name} went to bed with a big smile. | "
    "{A.Name} would never forget that day. | "
    "And that was a very good day. | "
    "{A.Name} was happy, and so was everyone else. | "
    "The end."
)


def ending(s: Story, A: Who, moral: str | None = None, p_moral: float = 0.5) -> None:
    if moral and s.chance(p_moral):
        s.add(moral)
    else:
        s.add(*GENERIC_ENDINGS)


# ---------------------------------------------------------------------------
# Plots. Each takes a Story, draws its cast and writes 3-15 sentences.
# ---------------------------------------------------------------------------


def plot_lost_object(s: Story) -> None:
    A = s.character()
    X = s.toy() if s.chance(0.6) else s.thing()
    s.ctx.update(A=A, X=X)
    opening(s, A)
    s.add(
        "{A.Name} had {X.a} that {A.he} loved very much.",
        "{A.His} favorite thing in the world was {X.a}.",
        "{A.Name} took {X.the} everywhere {A.he} went.",
    )
    s.add(
        "One day, {A.name} could not find {X.the}.",
        "One morning, {X.the} was gone.",
        "But one day, {A.name} lost {X.the}.",
    )
    feel(s, A, good=False)
    spots = s.rng.sample(HOME_SPOTS, 3)
    helped = s.chance(0.5)
    if helped:
        B = s.character(0.3) if s.chance(0.5) else s.parent(A)
        s.ctx["B"] = B
        s.add(
            "{A.He} asked {B.name} for help.",
            "\"Can you help me find my {X.noun}?\" {A.name} asked {B.name}.",
            "{A.Name} went to {B.name} and said, \"I lost my {X.noun}. Will you help me?\"",
        )
        s.add("{B.Name} said, \"Yes, let's look together!\"", "\"Of course!\" said {B.name}.")
        s.add("They looked {s0} and {s1}, but it was not there.", s0=spots[0], s1=spots[1])
        s.add(
            "Then {B.name} looked {s2} and found {X.the}!",
            "At last, {B.name} shouted, \"Look, it is {s2}!\"",
            s2=spots[2],
        )
        s.add(
            "{A.Name} hugged {B.name} and said, \"Thank you!\"",
            "\"Thank you so much!\" said {A.name}.",
        )
        ending(s, A, "{A.Name} learned that it is good to ask for help.")
    else:
        s.add(
            "{A.He} looked {s0}. {A.He} looked {s1}.",
            "{A.He} looked {s0}, and then {s1}.",
            s0=spots[0], s1=spots[1],
        )
        s.add(
            "{A.He} did not give up.",
            "{A.Name} was tired, but {A.he} kept looking.",
        )
        s.add(
            "At last, {A.he} found {X.the} {s2}!",
            "Then {A.he} saw something {s2}. It was {X.the}!",
            s2=spots[2],
        )
        feel(s, A, good=True)
        ending(s, A, "From that day on, {A.name} always put {X.the} away in a safe place.", 0.6)


def plot_new_friend(s: Story) -> None:
    A = s.character()
    B = s.character(0.35)
    prep, place = s.pick(PLACES)
    s.ctx.update(A=A, B=B)
    opening(s, A)
    go_somewhere(s, A, prep, place)
    s.add(
        "There {A.he} saw {B.a} sitting all alone.",
        "{A.He} saw {B.a} that {A.he} had never seen before.",
        "Near a big tree, there was {B.a} named {B.name}.",
    )
    if B.the not in s.lines[-1] and B.name not in s.lines[-1]:
        s.add("Its name was {B.name}." if False else "The {B.kind}'s name was {B.name}.")
    shy = s.chance(0.5)
    if shy:
        s.add(
            "{A.Name} felt shy and did not know what to say.",
            "{A.Name} wanted to say hello, but {A.he} {A.was} too shy.",
        )
        s.add(
            "Then {B.name} walked over and said, \"Hi! Do you want to play?\"",
            "So {B.name} came over and smiled at {A.name}.",
        )
    else:
        s.add(
            "{A.Name} walked up and said, \"Hello! My name is {A.name}. Do you want to play?\"",
            "\"Hi!\" said {A.name}. \"Do you want to play with me?\"",
        )
    game = s.pick(GAMES)
    s.add(
        "{B.Name} smiled and said, \"Yes, I would love to!\"",
        "\"Yes!\" said {B.name} with a big smile.",
    )
    s.add(
        "They played {game} {t}.",
        "They played {game} together and laughed a lot.",
        "They ran and jumped and played {game}.",
        game=game, t=s.pick(PLAY_TIME),
    )
    s.add(
        "When it was time to go home, they promised to play again tomorrow.",
        "From that day on, {A.name} and {B.name} were best friends.",
        "Now {A.name} had a new friend.",
    )
    ending(s, A, "{A.Name} learned that saying hello is the first step to a new friend."
           if shy else "{A.Name} learned that it is easy to make a friend when you are kind.")


def plot_fear(s: Story) -> None:
    A = s.character(0.2)
    P = s.parent(A)
    thing, why, act = s.pick(FEARS)
    why = s.fill(why, he=A.he, his=A.his, himself=A.himself, was=A.was)
    act = s.fill(act, his=A.his, himself=A.himself)
    s.ctx.update(A=A, P=P, thing=thing, why=why, act=act)
    opening(s, A)
    s.add("But {A.name} {A.was} afraid of {thing}.", "{A.Name} {A.was} scared of {thing}.")
    s.add("{A.He} {A.was} scared because {why}.", "{A.Name} did not like it because {why}.")
    s.add(
        "{P.Name} saw that {A.name} {A.was} scared.",
        "One day, {P.name} sat down next to {A.name}.",
    )
    s.add(
        "\"It is okay to be scared,\" said {P.name}. \"But you are braver than you think.\"",
        "\"I will be right here with you,\" {P.name} said.",
        "\"Being brave means trying even when you are scared,\" said {P.name}.",
    )
    tried = s.chance(0.75)
    if tried:
        s.add(
            "{A.Name} took a deep breath.",
            "{A.Name} held {P.name}'s hand tight.",
            "{A.Name} counted to three.",
        )
        s.add(
            "Then {A.he} decided to {act}.",
            "Slowly, {A.he} tried to {act}.",
        )
        s.add(
            "It was not so scary after all!",
            "To {A.his} surprise, it was fun!",
            "Nothing bad happened at all.",
        )
        feel(s, A, good=True)
        ending(s, A, "{A.Name} learned that being brave feels good.", 0.6)
    else:
        s.add(
            "{A.Name} shook {A.his} head. \"Not today,\" {A.he} said.",
            "{A.Name} was still too scared, so {A.he} said, \"Maybe tomorrow.\"",
        )
        s.add(
            "{P.Name} smiled and gave {A.him} a hug.",
            "\"That is okay,\" said {P.name}. \"You can try when you are ready.\"",
        )
        s.add(
            "The next day, {A.name} felt ready, and {A.he} {A.was} able to {act}.",
            "A few days later, {A.name} tried again and was able to {act}.",
        )
        ending(s, A, "{A.Name} learned that it is okay to take your time.", 0.7)


def plot_sharing(s: Story) -> None:
    A = s.character()
    B = s.character(0.3)
    share_food = s.chance(0.5)
    X = Thing(s.pick(FOODS)) if share_food else s.toy()
    s.ctx.update(A=A, B=B, X=X)
    opening(s, A)
    s.add(
        "{A.Name} had {X.a}.",
        "One day, {A.name} got {X.a} from {A.his} mom.",
        "{A.Name} was playing with {X.a}." if not share_food else "{A.Name} had {X.a} for lunch.",
    )
    s.add(
        "{A.His} friend {B.called} came by and looked at {X.the}.",
        "Then {A.his} friend {B.called} came to see {A.him}.",
    )
    s.add(
        "\"Can I have some too?\" asked {B.name}." if share_food else
        "\"Can I play with it too?\" asked {B.name}.",
        "\"That looks so nice,\" said {B.name}. \"Can I try?\"",
    )
    shared = s.chance(0.6)
    if shared:
        s.add(
            "{A.Name} thought for a moment and said, \"Yes, let's share!\"",
            "\"Sure!\" said {A.name}, and {A.he} gave {B.name} half."
            if share_food else "\"Sure!\" said {A.name}, and {A.he} gave {B.name} a turn.",
        )
        s.add("{B.Name} was very happy.", "{B.Name} smiled a big smile.")
        s.add(
            "Sharing made them both feel good.",
            "They had more fun together than alone.",
        )
        ending(s, A, "{A.Name} learned that sharing makes everyone happy.", 0.6)
    else:
        s.add(
            "\"No, it is mine!\" said {A.name}.",
            "But {A.name} held {X.the} close and said, \"No.\"",
        )
        s.add("{B.Name} felt sad and walked away.", "{B.Name} looked down and went home.")
        s.add(
            "Soon {A.name} was alone, and it was not fun anymore.",
            "{A.Name} played alone, but {A.he} did not feel happy.",
        )
        s.add(
            "So {A.he} ran after {B.name} and said, \"I am sorry. Let's share.\"",
            "The next day, {A.name} said sorry to {B.name} and shared {X.the}.",
        )
        s.add("{B.Name} smiled, and they were friends again.", "They hugged and played together.")
        ending(s, A, "{A.Name} learned that sharing is better than keeping things to yourself.", 0.7)


def plot_race(s: Story) -> None:
    A = s.character(0.5)
    B = s.character(0.5)
    prep, place = s.pick(PLACES[:24])
    s.ctx.update(A=A, B=B, place=place, prep=prep)
    opening(s, A)
    s.add(
        "{A.Name} had a friend named {B.name}, who was {B.a} and very fast.",
        "{A.His} best friend was {B.called}.",
        "{A.Name} and {A.his} friend {B.called} liked to run.",
    )
    s.add(
        "One day, {B.name} said, \"Let's have a race {prep} {place}!\"",
        "One day, {A.name} and {B.name} decided to race {prep} {place}.",
    )
    s.add(
        "\"Ready, set, go!\" they shouted.",
        "They lined up, and on the count of three, they ran.",
    )
    s.add("{A.Name} ran very fast.", "{A.Name} ran as fast as {A.he} could.")
    V = Who(s.pick(["a little bird", "a small bunny", "a baby duck", "a little boy", "a little girl"]),
            "it", "")
    s.ctx["V"] = V
    s.add(
        "On the way, {A.he} saw {V.name} that had fallen down.",
        "Then {A.he} heard a small cry. It was {V.name} who was hurt.",
    )
    stopped = s.chance(0.65)
    if stopped:
        s.add(
            "{A.Name} stopped to help.",
            "{A.Name} did not keep running. {A.He} stopped to help.",
        )
        s.add("{B.Name} won the race.", "So {B.name} got to the end first.")
        s.add(
            "But {B.name} saw what {A.name} did and said, \"You are a true friend.\"",
            "When {B.name} heard why {A.name} stopped, {B.he} gave {A.him} a big hug.",
        )
        ending(s, A, "{A.Name} learned that being kind is better than winning.", 0.7)
    else:
        s.add("{A.Name} kept running and won the race.", "{A.Name} did not stop, and {A.he} won.")
        s.add(
            "But then {A.he} thought about the one who was hurt and felt bad.",
            "But winning did not feel as good as {A.he} thought.",
        )
        s.add(
            "So {A.he} ran back to help, and {B.name} came too.",
            "{A.He} went back with {B.name}, and together they helped.",
        )
        ending(s, A, "{A.Name} learned that helping others matters more than winning.", 0.7)


def plot_weather(s: Story) -> None:
    A = s.character(0.2)
    P = s.parent(A)
    plan_prep, plan_place = s.pick([("to", "the park"), ("to", "the beach"), ("to", "the zoo"),
                                    ("to", "the lake"), ("on", "a picnic"), ("to", "the fair")])
    trouble = s.pick([
        ("dark clouds came and it started to rain", "rain"),
        ("a big storm came with thunder and lightning", "storm"),
        ("the wind blew very hard", "wind"),
        ("it started to snow", "snow"),
    ])
    s.ctx.update(A=A, P=P, plan=f"{plan_prep} {plan_place}", why=trouble[0])
    opening(s, A)
    s.add(
        "{A.Name} and {P.name} wanted to go {plan}.",
        "Today was the day! {A.Name} was going {plan} with {P.name}.",
    )
    s.add("But then {why}.", "Just as they were ready to go, {why}.")
    s.add("\"Oh no!\" said {A.name}. \"Now we can't go.\"", "{A.Name} felt sad and looked out the window.")
    idea = s.pick([
        "build a fort with blankets", "bake cookies", "play a board game", "draw pictures",
        "read a story", "have a picnic on the floor", "make a puppet show", "paint a picture",
    ])
    inside_choice = s.chance(0.5)
    if inside_choice:
        s.add("{P.Name} had an idea. \"Let's {idea} inside!\"", idea=idea)
    else:
        s.add("{A.Name} had an idea. \"Let's {idea}!\" {A.he} said.", idea=idea)
    s.add(
        "They had so much fun that they forgot about the {w}.",
        "It was fun, and the time went by fast.",
        w=trouble[1],
    )
    if trouble[1] in ("rain", "storm") and s.chance(0.6):
        s.add(
            "Later, the {w} stopped and a big rainbow came out.",
            "When the {w} was over, they saw a rainbow in the sky.",
            w=trouble[1],
        )
    ending(s, A, "{A.Name} learned that a bad day can still be a good day.")


def plot_parent_lesson(s: Story) -> None:
    A = s.character(0.2)
    P = s.parent(A)
    s.ctx.update(A=A, P=P)
    lesson = s.pick([
        ("touch the hot stove", "The stove is hot. It can hurt you", "listened to {P.name}", "stayed away from the stove"),
        ("run into the street", "Cars go fast on the street. Always hold my hand", "held {P.name}'s hand", "looked both ways"),
        ("eat all the candy before dinner", "Too much candy will make your tummy hurt", "put the candy away", "ate a good dinner first"),
        ("climb on the tall shelf", "You could fall and get hurt", "got down", "asked for help to reach high things"),
        ("stay up very late", "Your body needs sleep to grow", "went to bed", "went to bed on time"),
        ("leave {his} toys on the stairs", "Someone could trip and fall", "picked up {his} toys", "kept {his} toys in the box"),
        ("pet a dog without asking", "Always ask before you pet a dog you do not know", "asked first", "always asked first"),
        ("play with the scissors", "Scissors are sharp. Let me help you", "gave the scissors back", "used them only with help"),
    ])
    want, why, obey, habit = (s.fill(x, his=A.his, P=P) for x in lesson)
    s.ctx.update(want=want, why=why, obey=obey, habit=habit)
    opening(s, A)
    s.add("One day, {A.name} wanted to {want}.", "{A.Name} really wanted to {want}.")
    s.add(
        "\"Stop!\" said {P.name}. \"{why}.\"",
        "{P.Name} said, \"No, {A.vocative}. {why}.\"",
    )
    listened = s.chance(0.6)
    if listened:
        s.add("{A.Name} {obey}.", "{A.Name} nodded and {obey}.")
        s.add("{P.Name} smiled and said, \"Thank you for listening.\"")
        s.add("{A.Name} felt proud.", "{A.Name} gave {P.name} a hug.")
        ending(s, A, "From that day on, {A.name} {habit}.", 0.7)
    else:
        s.add(
            "But {A.name} did not listen.",
            "{A.Name} did not want to listen.",
        )
        s.add(
            "Soon {A.he} got a little hurt and began to cry.",
            "Then something went wrong, and {A.name} started to cry.",
        )
        s.add(
            "{P.Name} hugged {A.him} and said, \"This is why I told you.\"",
            "{P.Name} came running and helped {A.him}.",
        )
        s.add("\"I am sorry,\" said {A.name}. \"I will listen next time.\"")
        ending(s, A, "From that day on, {A.name} {habit}.", 0.7)


def plot_help_animal(s: Story) -> None:
    A = s.kid()
    kind = s.pick(SMALL_ANIMALS)
    V = Who(f"the {kind}", "it", kind)
    prep, place = s.pick(PLACES)
    trouble, fix = s.pick([
        ("was stuck in a tree", "climbed up slowly and helped it down"),
        ("had a hurt leg", "wrapped its leg with a soft cloth"),
        ("was lost and could not find its mom", "helped it look until they found its mom"),
        ("was caught in a net", "carefully cut the net"),
        ("was wet and cold from the rain", "dried it with a towel and kept it warm"),
        ("was very hungry", "gave it some food"),
        ("had fallen into a hole", "reached down and lifted it out"),
        ("was stuck in the mud", "pulled it out gently"),
    ])
    s.ctx.update(A=A, V=V, trouble=trouble, fix=fix)
    opening(s, A)
    go_somewhere(s, A, prep, place)
    s.add(
        "There {A.he} found a little {V.kind}.",
        "Suddenly {A.he} heard a small sound. It was a little {V.kind}.",
    )
    s.add("The {V.kind} {trouble}.", "{A.Name} saw that the {V.kind} {trouble}.")
    if V.kind and s.chance(0.5):
        s.add("The poor {V.kind} looked very scared.", "It looked up at {A.name} with big eyes.")
    s.add(
        "\"Don't worry, I will help you,\" said {A.name}.",
        "{A.Name} wanted to help.",
    )
    s.add("{A.Name} {fix}.", "So {A.he} {fix}.")
    s.add(
        "The {V.kind} was safe now.",
        "Soon the {V.kind} felt much better.",
    )
    stays = s.chance(0.4)
    if stays:
        s.add(
            "After that, the {V.kind} came to visit {A.name} every day.",
            "The {V.kind} followed {A.name} home and became {A.his} friend.",
        )
    else:
        s.add(
            "The {V.kind} looked at {A.name} as if to say thank you, and then it went home.",
            "Then the {V.kind} went back to its home, happy and safe.",
        )
    ending(s, A, "{A.Name} learned that even small acts of kindness matter.", 0.5)


def plot_broken_toy(s: Story) -> None:
    A = s.character(0.2)
    X = s.toy()
    s.ctx.update(A=A, X=X)
    opening(s, A)
    s.add("{A.Name} loved {A.his} {X.phrase}.", "{A.Name} had {X.a} that {A.he} played with every day.")
    s.add(
        "One day, {A.he} dropped it and it broke.",
        "One day, {X.the} fell off the table and broke.",
        "But one day, {A.his} dog bit {X.the} and broke it.",
    )
    s.add("{A.Name} began to cry.", "{A.Name} was very sad. \"My {X.noun}!\" {A.he} cried.")
    fixer_kind = s.pick(["parent", "self", "friend"])
    if fixer_kind == "parent":
        P = s.parent(A)
        s.ctx["P"] = P
        s.add("{P.Name} came and said, \"Let me see. Maybe we can fix it.\"")
        s.add(
            "{P.Name} got some glue and fixed {X.the}.",
            "Together they used tape and glue to fix it.",
        )
        s.add("\"Thank you!\" said {A.name}, and {A.he} hugged {P.name}.")
        ending(s, A, "{A.Name} learned that broken things can often be fixed with help.")
    elif fixer_kind == "friend":
        B = s.character(0.2)
        s.ctx["B"] = B
        s.add("{A.His} friend {B.name} came over and saw {A.him} crying.")
        s.add("\"I can help you fix it,\" said {B.name}.", "\"Don't be sad. Let's fix it together,\" said {B.name}.")
        s.add("They worked hard, and soon {X.the} was as good as new.", "It took a long time, but they fixed it.")
        s.add("Then they played with it together.")
        ending(s, A, "{A.Name} learned that friends help each other.")
    else:
        s.add("{A.Name} stopped crying and looked at the pieces.", "{A.Name} wiped {A.his} tears.")
        s.add(
            "\"I can fix this myself,\" {A.he} said.",
            "{A.He} thought and thought, and then {A.he} had an idea.",
        )
        s.add("{A.He} got some tape and worked very carefully.", "Slowly, {A.he} put the pieces back together.")
        s.add("It was not perfect, but {X.the} worked again!", "Soon {X.the} was fixed!")
        feel(s, A, good=True)
        ending(s, A, "{A.Name} learned that trying hard can fix a problem.")


def plot_trip(s: Story) -> None:
    A = s.character(0.2)
    P = s.parent(A)
    dest, sights = s.pick([
        ("the beach", ["big waves", "shells in the sand", "a crab", "seagulls in the sky", "a sailboat"]),
        ("the zoo", ["a tall giraffe", "a big lion", "funny monkeys", "a sleepy bear", "a gray elephant"]),
        ("the farm", ["a pink pig", "a brown cow", "little chicks", "a big tractor", "a white horse"]),
        ("the forest", ["tall trees", "a deer", "a red mushroom", "a little stream", "a squirrel"]),
        ("the lake", ["ducks on the water", "a fish jumping", "a wooden boat", "a green frog", "a swan"]),
        ("the mountains", ["snow on the top", "a goat on the rocks", "a waterfall", "big rocks", "an eagle"]),
        ("the city", ["tall buildings", "a red bus", "a big fountain", "a street band", "many lights"]),
        ("the museum", ["old bones of a dinosaur", "big paintings", "a shiny rocket", "a model ship", "old coins"]),
    ])
    a, b = s.rng.sample(sights, 2)
    vehicle = s.pick(["car", "bus", "train", "boat", "bike"])
    s.ctx.update(A=A, P=P, dest=dest, a=a, b=b, vehicle=vehicle)
    opening(s, A)
    s.add(
        "One day, {P.name} said, \"Today we are going to {dest}!\"",
        "{time}, {A.name} and {P.name} went on a trip to {dest}.",
        time=s.pick(TIMES),
    )
    s.add("They went by {vehicle}.", "They rode there in a {vehicle}.", "{A.Name} was so excited on the {vehicle}.")
    s.add("At {dest}, {A.name} saw {a}.", "First, they saw {a}.")
    s.add("Then {A.he} saw {b}.", "{A.Name} also saw {b}.", "After that, they found {b}.")
    event = s.chance(0.5)
    if event:
        s.add(
            "{A.Name} got lost for a moment, but {P.name} found {A.him} fast.",
            "{A.Name} dropped {A.his} hat, but a kind man gave it back.",
            "{A.Name} made a new friend there.",
        )
    s.add(
        "When the sun went down, they went home.",
        "At the end of the day, {A.name} was very tired.",
    )
    s.add(
        "{A.Name} fell asleep on the way home, dreaming about {a}.",
        "\"Can we go again?\" asked {A.name}. {P.Name} laughed and said, \"Yes!\"",
    )


def plot_birthday(s: Story) -> None:
    A = s.character(0.25)
    B = s.character(0.3)
    X = s.toy()
    age = s.pick(["four", "five", "six", "seven", "eight"])
    cake = s.pick(["chocolate", "strawberry", "lemon", "vanilla", "carrot", "banana"])
    s.ctx.update(A=A, B=B, X=X, age=age, cake=cake)
    opening(s, A)
    s.add(
        "Today was {A.name}'s birthday. {A.He} {A.was} {age} years old!",
        "It was {A.name}'s birthday, and {A.he} {A.was} turning {age}.",
    )
    s.add(
        "There was a big {cake} cake with {age} candles.",
        "Mom made a {cake} cake for the party.",
    )
    late = s.chance(0.4)
    if late:
        s.add("All {A.his} friends came, but {B.name} was not there.")
        s.add("{A.Name} felt a little sad and kept looking at the door.")
        s.add(
            "Then the door opened, and {B.name} ran in with {X.a}!",
            "At last, {B.name} came. \"Sorry I am late!\" {B.he} said, holding {X.a}.",
        )
    else:
        s.add(
            "{A.His} best friend {B.name} gave {A.him} {X.a}.",
            "{B.Name} came to the party with a gift. It was {X.a}!",
        )
    s.add(
        "{A.Name} made a wish and blew out the candles.",
        "Everyone sang a song, and {A.name} blew out the candles.",
    )
    s.add(
        "They ate cake and played games {t}.",
        "They played with {X.the} and ate cake.",
        t=s.pick(PLAY_TIME),
    )
    ending(s, A, "It was the best birthday ever.", 0.6)


def plot_misunderstanding(s: Story) -> None:
    A = s.character(0.25)
    B = s.character(0.25)
    X = s.toy() if s.chance(0.5) else s.thing()
    s.ctx.update(A=A, B=B, X=X)
    opening(s, A)
    friend_line(s, A, B)
    case = s.pick(["took", "ignored", "laughed"])
    if case == "took":
        s.add("One day, {A.name} could not find {A.his} {X.phrase}.")
        s.add("Then {A.he} saw {B.name} holding {X.a} just like it.", "{A.He} saw {X.a} in {B.name}'s bag.")
        s.add("\"You took my {X.noun}!\" said {A.name}.", "{A.Name} was angry and shouted, \"That is mine!\"")
        s.add("\"No, this one is mine,\" said {B.name}. \"My {grown} gave it to me.\"",
              grown=s.pick(["mom", "dad", "grandma", "grandpa", "aunt", "uncle"]))
        s.add(
            "When {A.name} got home, {A.he} found {A.his} own {X.noun} {spot}.",
            "Later, {A.name} found {A.his} {X.noun} {spot}.",
            spot=s.pick(HOME_SPOTS),
        )
        s.add("{A.Name} felt bad and went to say sorry to {B.name}.",
              "The next day, {A.name} said, \"I am sorry, {B.name}. I was wrong.\"")
        s.add("{B.Name} smiled. \"That is okay. Now we both have one!\"")
        ending(s, A, "{A.Name} learned to ask before thinking the worst.", 0.7)
    elif case == "ignored":
        s.add("One day, {A.name} waved at {B.name}, but {B.name} did not wave back.")
        s.add("{A.Name} thought {B.name} was mad at {A.him}.", "\"Maybe {B.he} does not like me anymore,\" thought {A.name}.".replace("{B.he} does", "{B.he} {B.does}"))
        feel(s, A, good=False)
        talk = s.chance(0.6)
        if talk:
            s.add("So {A.name} walked over and asked, \"Are you mad at me?\"")
        else:
            s.add("{A.Name} stayed away all day, but then {B.name} came over.")
        s.add(
            "\"No!\" said {B.name}. \"I lost my glasses and could not see you.\"",
            "{B.Name} said, \"I did not see you! I was looking for my {thing}.\"",
            thing=s.pick(THINGS),
        )
        s.add("They both laughed.", "{A.Name} laughed, and so did {B.name}.")
        ending(s, A, "{A.Name} learned that it is better to ask than to guess.", 0.7)
    else:
        s.add("One day, {A.name} tripped and fell in the mud.")
        s.add("{B.Name} started to laugh.")
        s.add("{A.Name} thought {B.name} was laughing at {A.him}, and {A.he} felt hurt.")
        s.add("\"Why are you laughing at me?\" asked {A.name}.")
        s.add(
            "\"I am not laughing at you,\" said {B.name}. \"Look, I fell in the mud too!\"",
            "\"I am laughing because a frog jumped on your head!\" said {B.name}.",
        )
        s.add("{A.Name} looked and started to laugh too.")
        ending(s, A, "{A.Name} learned that things are not always what they seem.", 0.7)


def friend_line(s: Story, A: Who, B: Who) -> None:
    """Name the friend before the plot uses them."""
    s.add(
        "{A.Name} had a friend named {B.name}.",
        "{A.His} best friend was {B.called}.",
        "{A.Name} had a good friend, {B.a} named {B.name}.",
        "{A.Name} and {B.called} were good friends.",
        "{A.Name} often played with {A.his} friend {B.called}.",
        A=A, B=B,
    )


def plot_baking(s: Story) -> None:
    A = s.character(0.15)
    P = s.parent(A)
    treat = s.pick(["cookies", "a cake", "muffins", "pancakes", "bread", "a pie", "cupcakes", "waffles"])
    s.ctx.update(A=A, P=P, treat=treat)
    opening(s, A)
    s.add(
        "One day, {P.name} said, \"Do you want to help me make {treat}?\"",
        "{time}, {A.name} and {P.name} decided to make {treat}.",
        time=s.pick(TIMES),
    )
    s.add("\"Yes!\" said {A.name}, and {A.he} put on a little apron.", "{A.Name} was so excited to help.")
    s.add(
        "They put flour, eggs and milk in a big bowl.",
        "{A.Name} mixed the flour and the eggs with a big spoon.",
        "First they got the flour, the sugar and the butter.",
    )
    mistake = s.chance(0.5)
    if mistake:
        s.add(
            "But {A.name} put salt in the bowl instead of sugar!",
            "Then {A.name} dropped the whole bag of flour, and it went everywhere.",
            "Oops! {A.Name} put in too much milk, and the dough was too wet.",
        )
        s.add("{A.Name} felt bad. \"I am sorry,\" {A.he} said.", "{A.Name} looked at {P.name} with sad eyes.")
        s.add(
            "{P.Name} laughed and said, \"It is okay. Everyone makes mistakes. Let's try again.\"",
            "\"Don't worry,\" said {P.name}. \"We can start again together.\"",
        )
        s.add("This time, they were very careful.", "The second time, everything went right.")
    else:
        s.add("{A.Name} was very careful and did not spill anything.", "{A.Name} stirred and stirred until it was smooth.")
    if not mistake:
        s.add(
            "Soon the kitchen smelled warm and sweet.",
            "They put it in the oven and waited.",
        )
    give = s.chance(0.5)
    if give:
        s.add(
            "{A.Name} took some {treat2} to the old lady next door.",
            "{A.Name} shared the {treat2} with {A.his} friends.",
            treat2=treat.replace("a ", ""),
        )
        s.add("Everyone said they were the best they ever had.", "The old lady smiled and said thank you.")
    else:
        s.add("The {treat2} were yummy!".replace("were", "was") if treat.startswith("a ") or treat == "bread"
              else "The {treat2} were yummy!", treat2=treat.replace("a ", ""))
    ending(s, A, "{A.Name} learned that making mistakes is part of learning." if mistake
           else "{A.Name} learned that cooking together is fun.", 0.5)


def plot_garden(s: Story) -> None:
    A = s.character(0.2)
    plant = s.pick(["a sunflower", "a tomato plant", "a bean", "a pumpkin", "a little tree",
                    "a rose", "a carrot", "a strawberry plant", "a daisy", "an apple tree"])
    s.ctx.update(A=A, plant=plant, bare=plant.split(" ", 1)[1])
    opening(s, A)
    s.add(
        "One spring day, {A.name} found a tiny seed.",
        "{A.Name}'s grandma gave {A.him} a small seed.",
        "{A.Name} got a little bag of seeds from the store.",
    )
    s.add("{A.He} planted it in the garden and gave it some water.",
          "{A.He} dug a small hole, put the seed in, and covered it with dirt.")
    s.add("Every day, {A.name} looked at the dirt, but nothing happened.",
          "The next day, {A.name} ran outside to look, but there was nothing there.")
    dig = s.chance(0.4)
    if dig:
        s.add("{A.Name} was tired of waiting, so {A.he} dug up the seed to look.")
        s.add("The seed had a tiny white root, but now it was hurt.")
        s.add("{A.Name} felt sorry. {A.He} put it back very gently and said, \"I will wait this time.\"")
    else:
        s.add("{A.Name} wanted to dig it up to see, but {A.he} waited.",
              "{A.Name} was tired of waiting, but {A.he} kept giving it water.")
    s.add(
        "After many days, a little green shoot came up!",
        "One morning, {A.name} saw a tiny green leaf.",
    )
    s.add(
        "It grew and grew, and soon it was {plant}!",
        "Weeks later, the little shoot became {plant}.",
    )
    feel(s, A, good=True)
    ending(s, A, "{A.Name} learned that good things take time.", 0.7)


def plot_night_noise(s: Story) -> None:
    A = s.character(0.2)
    P = s.parent(A)
    noise, source = s.pick([
        ("a scratch, scratch at the window", "a branch from the tree moving in the wind"),
        ("a bump under the bed", "the cat playing with a ball"),
        ("a loud creak in the hall", "the old floor, because the house was cold"),
        ("a tap, tap, tap on the roof", "rain falling on the roof"),
        ("a soft hoot outside", "an owl sitting on the fence"),
        ("a squeak in the closet", "a little mouse looking for crumbs"),
        ("a soft thump by the bed", "{his} own teddy bear falling on the floor"),
    ])
    source = s.fill(source, his=A.his)
    s.ctx.update(A=A, P=P, noise=noise, source=source)
    opening(s, A)
    s.add("One night, {A.name} was in bed, but {A.he} could not sleep.",
          "It was late at night, and the house was dark and quiet.")
    s.add("Then {A.he} heard {noise}.", "Suddenly, there was {noise}.")
    s.add("\"Is it a monster?\" {A.name} thought.", "{A.Name} pulled the blanket over {A.his} head.")
    look = s.chance(0.5)
    if look:
        s.add("{A.Name} was scared, but {A.he} wanted to know what it was.",
              "{A.Name} took a deep breath and got out of bed.")
        s.add("{A.He} turned on the lamp and looked.", "{A.He} took {A.his} flashlight and went to look.")
        s.add("It was only {source}!", "{A.He} saw that it was just {source}.")
        s.add("{A.Name} laughed and went back to bed.")
    else:
        s.add("\"{P.vocative}!\" called {A.name}.", "{A.Name} ran to {P.name}'s room.")
        s.add("{P.Name} came and turned on the light.")
        s.add("They looked together, and it was only {source}.")
        s.add("{P.Name} gave {A.him} a hug and a kiss good night.")
    s.add("Soon {A.name} was fast asleep.", "{A.Name} closed {A.his} eyes and slept all night.")
    ending(s, A, "{A.Name} learned that the dark is not so scary when you look.", 0.4)


def plot_first_school(s: Story) -> None:
    A = s.kid()
    B = s.kid()
    P = s.parent(A)
    teacher = s.pick(["Miss Rose", "Mr. Brown", "Mrs. Green", "Miss Lee", "Mr. Park", "Mrs. Hill", "Miss Kim"])
    s.ctx.update(A=A, B=B, P=P, teacher=teacher)
    opening(s, A)
    s.add("Today was {A.name}'s first day at a new school.", "It was the first day of school.")
    s.add("{A.Name} held {P.name}'s hand tight. {A.His} tummy felt funny.",
          "{A.Name} felt nervous. What if nobody liked {A.him}?")
    s.add("\"You will have a great day,\" said {P.name}.", "{P.Name} gave {A.him} a big hug at the door.")
    s.add("The teacher, {teacher}, had a kind smile.", "{teacher} said, \"Welcome to our class, {A.name}!\"")
    s.add(
        "At lunch, {A.name} sat alone.",
        "At play time, {A.name} stood by the wall and watched the others.",
    )
    if s.chance(0.5):
        s.add("Then {A.he} saw {B.name}, who was sitting alone too.")
        s.add("{A.Name} walked over and said, \"Hi, I am new. Can I sit with you?\"")
    else:
        s.add("Then {B.a} named {B.name} came over.")
        s.add("\"Do you want to play with us?\" asked {B.name}.")
    s.add("Soon they were laughing and playing {game}.", "They talked about their favorite {thing}s.",
          game=s.pick(GAMES), thing=s.pick(["animal", "color", "food", "game", "book"]))
    s.add("When {P.name} came, {A.name} ran up and said, \"School is fun!\"",
          "At home, {A.name} told {P.name} all about {A.his} new friend.")
    ending(s, A, "{A.Name} learned that new things are not so scary after the first step.", 0.5)


def plot_treasure(s: Story) -> None:
    A = s.character(0.25)
    B = s.character(0.3)
    spot = s.pick(["under the old oak tree", "behind the big rock", "next to the pond", "by the garden gate",
                   "in the sand by the sea", "under the red bench"])
    prize = s.pick(["shiny coins", "old toys", "colorful marbles", "a bag of candy", "a letter from grandpa",
                    "pretty shells", "a small gold key", "a box of crayons"])
    s.ctx.update(A=A, B=B, spot=spot, prize=prize)
    opening(s, A)
    friend_line(s, A, B)
    s.add("One day, {A.name} found an old map in the attic.", "One day, {A.name} and {B.name} found a map in a bottle.")
    s.add("The map had a big red X on it.", "On the map was a path and a big X.")
    s.add("\"It is a treasure map!\" said {B.name}.", "\"Let's find the treasure!\" said {A.name}.")
    s.add("They followed the path past the {a} and over the {b}.",
          a=s.pick(["tall trees", "old barn", "little bridge", "duck pond", "flower bed"]),
          b=s.pick(["hill", "fence", "stream", "rocks", "big log"]))
    s.add("At last, they came to the spot {spot}.", "The X was {spot}.")
    s.add("They dug and dug until they hit something hard.", "They dug with their hands and found a small box.")
    s.add("Inside the box, they found {prize}!", "They opened the box, and inside were {prize}!"
          if not prize.startswith("a ") else "They opened the box, and inside was {prize}!")
    keep = s.chance(0.5)
    if keep:
        s.add("\"Let's share it,\" said {A.name}, and they split it in half.")
    else:
        s.add("They decided to give some to the other kids in town.",
              "They took it home to show their families.")
    ending(s, A, "The best treasure was the fun they had together.", 0.6)


def plot_sibling(s: Story) -> None:
    A = s.kid()
    sib_kind = s.pick(["brother", "sister"])
    sib = Who(s._fresh(BOY_NAMES if sib_kind == "brother" else GIRL_NAMES),
              "he" if sib_kind == "brother" else "she", sib_kind)
    X = s.pick(["a tall tower of blocks", "a big sand castle", "a picture of a horse", "a long train track",
                "a house made of cards", "a puzzle of a ship"])
    s.ctx.update(A=A, C=sib, X=X)
    opening(s, A)
    s.add("{A.Name} had a little {C.kind} named {C.name}.", "{A.Name} lived with {A.his} baby {C.kind}, {C.name}.")
    s.add("{C.Name} wanted to do everything {A.name} did.", "{C.Name} always followed {A.name} around.")
    s.add("One day, {A.name} made {X}.", "One afternoon, {A.name} worked hard on {X}.")
    s.add("Then {C.name} came and knocked it over!", "But {C.name} ran in and broke it by mistake.")
    s.add("\"{C.Name}! Look what you did!\" shouted {A.name}.", "{A.Name} was so angry that {A.his} face turned red.")
    s.add("{C.Name} began to cry.", "{C.Name} looked sad and said, \"I just wanted to play with you.\"")
    kind = s.chance(0.6)
    if kind:
        s.add("{A.Name} took a deep breath and calmed down.", "{A.Name} saw the tears and felt sorry.")
        s.add("\"Do you want to build it again with me?\" asked {A.name}.")
        s.add("{C.Name} nodded and smiled.", "{C.Name} stopped crying and clapped.")
        s.add("They made it again together, and this time it was even better.")
    else:
        s.add("{A.Name} went to {A.his} room and shut the door.")
        s.add("But it was boring and quiet without {C.name}.")
        s.add("Later, {A.he} came out and said, \"I am sorry I yelled. Let's play together.\"")
        s.add("{C.Name} gave {A.him} a big hug.")
    ending(s, A, "{A.Name} learned that being a big {sib} means being patient.".replace(
        "{sib}", "sister" if A.he == "she" else ("brother" if A.he == "he" else "kid")), 0.6)


def plot_truth(s: Story) -> None:
    A = s.character(0.15)
    P = s.parent(A)
    thing = s.pick(["{P.his} favorite vase", "the new lamp", "a blue plate", "the window", "a cup",
                    "the little clock", "grandma's teapot", "a jar of jam"])
    thing = thing.replace("{P.his}", P.his)
    game = s.pick(["playing ball in the house", "jumping on the sofa", "running in the kitchen",
                   "dancing in the living room", "throwing a toy plane"])
    s.ctx.update(A=A, P=P, thing=thing, game=game)
    opening(s, A)
    s.add("One day, {A.name} was {game}.", "{A.Name} knew {A.he} should not be {game}, but {A.he} did it anyway.")
    s.add("{sound}! {A.He} broke {thing}.", sound=s.pick(["Crash", "Bang", "Crack", "Smash"]))
    s.add("{A.Name} was scared that {P.name} would be mad.", "{A.Name} felt cold and scared.")
    honest = s.chance(0.55)
    if honest:
        s.add("{A.He} thought about hiding it, but then {A.he} went to {P.name}.")
        s.add("\"I broke {thing},\" said {A.name}. \"I am sorry.\"")
        s.add("{P.Name} was sad, but {P.he} said, \"Thank you for telling me the truth.\"")
        s.add("They cleaned it up together.", "Together they picked up the pieces.")
        ending(s, A, "{A.Name} learned that telling the truth is always best.", 0.7)
    else:
        s.add("{A.He} hid the pieces under the {where}.", where=s.pick(["sofa", "bed", "rug", "table"]))
        s.add("When {P.name} asked what happened, {A.name} said, \"I don't know.\"")
        s.add("But that night {A.name} could not sleep. {A.His} tummy felt bad.",
              "All day, {A.name} felt heavy and sad inside.")
        s.add("At last, {A.he} told {P.name} the truth.", "The next morning, {A.he} said, \"It was me. I am sorry.\"")
        s.add("{P.Name} hugged {A.him} and said, \"I am glad you told me.\"")
        ending(s, A, "{A.Name} learned that a lie feels heavy, but the truth makes you free.", 0.7)


def plot_ask_help(s: Story) -> None:
    A = s.character(0.3)
    B = s.character(0.3)
    task = s.pick([
        ("reach the cookie jar on the high shelf", "stood on a wobbly chair", "held the chair steady"),
        ("carry a big box of toys", "pulled and pulled", "took one side of the box"),
        ("open a tight jar of jam", "twisted as hard as {he} could", "tapped the lid and twisted"),
        ("build a big tree house", "tried to lift a heavy board", "held the board while {A.name} used the hammer"),
        ("tie {his} shoes", "tried again and again", "showed {him} how to make two loops"),
        ("push {his} wagon up the hill", "pushed until {his} legs hurt", "pushed from behind"),
    ])
    want, tried, helped = (s.fill(x, he=A.he, his=A.his, him=A.him, A=A) for x in task)
    s.ctx.update(A=A, B=B, want=want, tried=tried, helped=helped)
    opening(s, A)
    s.add("{A.Name} liked to do everything by {A.himself}.", "{A.Name} never wanted help from anyone.")
    s.add("One day, {A.name} wanted to {want}.")
    s.add("{A.He} {tried}, but it did not work.")
    s.add("{A.His} friend {B.called} saw {A.him} and asked, \"Do you need help?\"")
    proud = s.chance(0.5)
    if proud:
        s.add("\"No, I can do it myself!\" said {A.name}.")
        s.add("{A.He} tried again, and this time {A.he} fell down.", "{A.He} tried once more, but it was still too hard.")
        s.add("\"Okay,\" said {A.name} softly. \"Can you help me?\"")
    else:
        s.add("{A.Name} thought for a moment and said, \"Yes, please.\"")
    s.add("{B.Name} {helped}.")
    s.add("Together, it was easy!", "With help, they did it in no time.")
    ending(s, A, "{A.Name} learned that it is smart to ask for help.", 0.7)


def plot_clean_room(s: Story) -> None:
    A = s.character(0.15)
    P = s.parent(A)
    X = s.toy()
    reward = s.pick(["go to the park", "have ice cream", "read two stories at bedtime", "go swimming", "bake a cake"])
    s.ctx.update(A=A, P=P, X=X, reward=reward)
    opening(s, A)
    s.add("{A.Name}'s room was a big mess.", "There were toys all over {A.name}'s floor.")
    s.add("\"Please clean your room,\" said {P.name}. \"Then we can {reward}.\"")
    lazy = s.chance(0.5)
    if lazy:
        s.add("But {A.name} did not want to clean. {A.He} wanted to play.",
              "{A.Name} said, \"Later!\" and kept playing.")
        s.add("Then {A.he} stepped on a block and cried, \"Ouch! It is time to clean.\"")
    else:
        s.add("{A.Name} said, \"Okay!\" and got to work.")
    s.add("{A.He} put the books on the shelf and the clothes in the basket.",
          "{A.He} picked up every toy and put it in the box.")
    s.add("Under the bed, {A.he} found {X.a} that had been lost for a long time!",
          "Under a pile of clothes, {A.he} found {A.his} old {X.phrase}!")
    s.add("{A.Name} was so happy to have it back.")
    s.add("{P.Name} saw the clean room and said, \"Good job, now we can {reward}!\"")
    ending(s, A, "{A.Name} learned that cleaning up can be a happy surprise.", 0.5)


def plot_gift_for_parent(s: Story) -> None:
    A = s.character(0.2)
    P = s.parent(A)
    day = s.pick(["birthday", "special day", "day off"])
    gift = s.pick([
        ("made a card with a big red heart on it", "card"),
        ("picked the prettiest {f} in the garden", "flowers"),
        ("drew a picture of the whole family", "picture"),
        ("made a necklace from little beads", "necklace"),
        ("baked a small cake with a grown-up's help", "cake"),
        ("wrote a poem about love", "poem"),
    ])
    made = s.fill(gift[0], f=s.pick(FLOWERS))
    s.ctx.update(A=A, P=P, day=day, made=made, gift=gift[1])
    opening(s, A)
    s.add("Tomorrow was {P.name}'s {day}.", "{A.Name} knew that {P.name}'s {day} was coming.")
    s.add("{A.Name} wanted to give {P.him} something special, but {A.he} had no money.")
    s.add("{A.He} thought and thought. Then {A.he} had an idea!")
    s.add("{A.Name} {made}.")
    hide = s.chance(0.5)
    if hide:
        s.add("{A.He} hid it under {A.his} bed so it would be a surprise.")
        s.add("But {A.his} dog found it and ran off with it!")
        s.add("{A.Name} chased the dog around the yard and got it back.")
    s.add("In the morning, {A.name} gave {P.name} the {gift}.", "{A.Name} gave {P.name} the {gift} with a big smile.")
    s.add("{P.Name} had tears in {P.his} eyes. \"This is the best gift ever,\" {P.he} said.")
    s.add("{P.Name} gave {A.name} a big hug.")
    ending(s, A, "{A.Name} learned that the best gifts come from the heart.", 0.7)


def plot_fable(s: Story) -> None:
    kinds = s.rng.sample([k for k, _ in ANIMALS if k not in ("whale", "dolphin", "octopus", "seal", "crab")], 2)
    A = Who(s._fresh(PET_NAMES), s.pick(["he", "she"]), kinds[0], s.pick(ANIMAL_ADJ))
    B = Who(s._fresh(PET_NAMES), s.pick(["he", "she"]), kinds[1], s.pick(ANIMAL_ADJ))
    s.ctx.update(A=A, B=B, home=s.pick(["forest", "meadow", "jungle", "farm", "valley", "woods"]))
    shape = s.pick(["winter", "proud", "greedy"])
    s.add("Once upon a time, in a big {home}, there lived {A.a} named {A.name} and {B.a} named {B.name}.",
          "In a green {home}, {A.a} named {A.name} lived next to {B.a} named {B.name}.")
    if shape == "winter":
        s.add("All summer, {B.name} worked hard to gather food for the winter.")
        s.add("{A.Name} just played and sang in the sun.")
        s.add("\"Why do you work so hard?\" laughed {A.name}. \"Come and play!\"")
        s.add("\"Winter is coming,\" said {B.name}. \"We need food.\"")
        s.add("Soon the cold winter came, and the {home} was covered in snow.")
        s.add("{A.Name} had no food and was very hungry.")
        share = s.chance(0.6)
        if share:
            s.add("{A.He} knocked on {B.name}'s door, and {B.name} shared {B.his} food.")
            s.add("\"Next summer, I will work with you,\" said {A.name}.")
            ending(s, A, "It is good to work today for tomorrow, and kind to share.", 0.8)
        else:
            s.add("{A.He} {A.was} too proud to ask for help, and {A.he} {A.was} cold and hungry all winter.")
            s.add("When spring came, {A.name} worked hard every day.")
            ending(s, A, "It is wise to get ready before you need to.", 0.8)
    elif shape == "proud":
        s.add("{A.Name} was very proud. {A.He} said, \"I am the best {kind} in the {home}!\"", kind=A.kind)
        s.add("{A.He} laughed at {B.name} because {B.he} {B.was} small and slow.")
        s.add("One day, {A.name} got stuck in a {trap}.", trap=s.pick(["thorny bush", "deep hole", "net", "muddy pond"]))
        s.add("\"Help!\" cried {A.name}, but the other animals walked away.")
        s.add("Only {B.name} came to help. {B.He} worked slowly and carefully until {A.name} was free.")
        s.add("\"Thank you,\" said {A.name}. \"I am sorry I laughed at you.\"")
        ending(s, A, "Everyone is good at something, so be kind to all.", 0.8)
    else:
        food = s.pick(PLURAL_FOODS)
        s.ctx["food"] = food
        s.add("One day, {A.name} and {B.name} found a big pile of {food}.")
        s.add("\"These are all mine!\" said {A.name}, and {A.he} tried to carry them all.")
        s.add("But {A.he} took too many, and {A.he} dropped them in the river.")
        s.add("Now there were no {food} for anyone.")
        s.add("{B.Name} found a few more {food} and said, \"Let's share these.\"")
        s.add("{A.Name} felt ashamed and thanked {B.name}.")
        ending(s, A, "Greed can make you lose everything.", 0.8)


def plot_build(s: Story) -> None:
    A = s.character(0.2)
    B = s.character(0.3)
    what, where, wrecker = s.pick([
        ("a big sand castle", "at the beach", "a big wave"),
        ("a tall tower of blocks", "in the living room", "the cat"),
        ("a fort made of sticks", "in the woods", "a strong wind"),
        ("a snowman", "in the yard", "the warm sun"),
        ("a house of cards", "on the table", "a big sneeze"),
        ("a dam of stones", "in the stream", "the rushing water"),
    ])
    s.ctx.update(A=A, B=B, what=what, where=where, wrecker=wrecker)
    opening(s, A)
    s.add("One day, {A.name} built {what} {where}.", "{A.Name} worked all morning on {what} {where}.")
    s.add("It was the best one {A.he} had ever made.", "{A.He} added a little flag on the top.")
    s.add("Then {wrecker} came and knocked it down!", "But then {wrecker} knocked it over.")
    s.add("{A.Name} sat down and felt like crying.", "\"Oh no!\" cried {A.name}.")
    friend_line(s, A, B)
    s.add("{B.Name} came over and said, \"Let's build a new one together. We can make it even bigger!\"")
    s.add("This time, they made it {how}.",
          how=s.pick(["stronger", "wider at the bottom", "in a safer spot", "with more walls", "much bigger"]))
    if s.chance(0.5):
        s.add("{wrecker2} came again, but this time it stood strong.", wrecker2=_cap(wrecker))
    s.add("{A.Name} and {B.name} gave each other a high five.", "They were proud of their work.")
    ending(s, A, "{A.Name} learned not to give up when things fall down.", 0.6)


def plot_kite(s: Story) -> None:
    A = s.character(0.15)
    B = s.character(0.35)
    X = Thing("kite", s.pick(COLORS))
    s.ctx.update(A=A, B=B, X=X)
    opening(s, A)
    s.add("{A.Name} had {X.a} with a long tail.", "{A.Name} got {X.a} for {A.his} birthday.")
    s.add("One windy day, {A.he} took it to the hill.", "It was a windy day, so {A.he} went to fly {X.the}.")
    s.add("{X.The} flew high into the sky.", "Up, up, up went {X.the}!")
    s.add("Then a big gust of wind blew, and {X.the} got stuck in a tall tree.",
          "Suddenly the string broke, and {X.the} landed in a tree.")
    s.add("{A.Name} could not reach it.", "It was too high for {A.name} to reach.")
    helper = s.pick(["friend", "wind", "climb"])
    if helper == "friend":
        s.add("Then {B.called} came by.")
        s.add("{B.Name} had a long stick, and together they pulled {X.the} down.",
              "{B.Name} stood on {A.name}'s shoulders and got {X.the}." if B.kind in ("girl", "boy", "kid")
              else "{B.Name} had a long stick, and together they pulled {X.the} down.")
        s.add("\"Thank you!\" said {A.name}. \"Let's fly it together!\"")
    elif helper == "wind":
        s.add("{A.Name} sat under the tree and waited.")
        s.add("After a while, the wind blew again and {X.the} fell right into {A.his} hands!")
    else:
        s.add("{A.Name} asked {A.his} dad to help.")
        s.add("Dad got a ladder and climbed up to get {X.the}.")
    s.add("{X.The} flew again {t}.", "Soon {X.the} was dancing in the sky again.", t=s.pick(PLAY_TIME))
    ending(s, A)


def plot_lonely(s: Story) -> None:
    A = s.character(0.15)
    old = s.pick([("old Mrs. Brown", "she"), ("old Mr. Gray", "he"), ("old Miss Plum", "she"),
                  ("old Mr. Oak", "he"), ("Grandpa Joe", "he"), ("Granny Sue", "she")])
    O = Who(old[0], old[1], "")
    s.ctx.update(A=A, O=O)
    opening(s, A)
    s.add("{O.Name} lived alone in the house next to {A.name}'s.", "Next door lived {O.name}.")
    s.add("{O.He} sat by the window every day, and {O.he} never smiled.")
    s.add("{A.Name} asked {A.his} mom why {O.he} {O.was} always sad, and Mom said, \"Maybe {O.he} {O.is_} lonely.\"")
    gift = s.pick(["some cookies", "a drawing", "a flower", "a warm cup of tea", "a basket of apples"])
    s.add("The next day, {A.name} brought {O.name} {gift}.", gift=gift)
    s.add("{O.Name} smiled for the first time in a long time.")
    s.add("{O.He} told {A.name} stories about when {O.he} {O.was} little.",
          "{O.He} showed {A.name} how to play a game of cards.")
    s.add("After that, {A.name} visited {O.name} every week.")
    ending(s, A, "A small act of kindness can brighten someone's whole day.", 0.7)


def plot_dream(s: Story) -> None:
    A = s.character(0.2)
    where, sights = s.pick([
        ("to the moon", ["stars all around", "a crater as big as a lake", "the Earth far away"]),
        ("under the sea", ["colorful fish", "a big whale", "a castle made of shells"]),
        ("to a land made of candy", ["trees made of lollipops", "a river of chocolate", "houses made of cake"]),
        ("up into the clouds", ["birds flying next to {him}", "soft clouds like pillows", "a rainbow bridge"]),
        ("to a castle far away", ["a kind king", "a friendly dragon", "a tower full of books"]),
        ("to the jungle", ["a laughing monkey", "a sleepy tiger", "giant flowers"]),
    ])
    a, b = s.rng.sample(sights, 2)
    s.ctx.update(A=A, where=where, a=s.fill(a, him=A.him), b=s.fill(b, him=A.him))
    how = s.pick(["on a magic carpet", "in a little red rocket", "on the back of a big bird", "in a flying boat",
                  "on a cloud"])
    opening(s, A)
    s.add("One night, {A.name} had a wonderful dream.", "That night, {A.name} fell asleep and began to dream.")
    s.add("In the dream, {A.he} went {where} {how}.", how=how)
    s.add("{A.He} saw {a}.", "First {A.he} saw {a}.")
    s.add("Then {A.he} saw {b}.", "{A.He} also saw {b}.")
    s.add("\"This is amazing!\" said {A.name}.")
    if s.chance(0.5):
        s.add("{A.He} wanted to stay forever, but then {A.he} heard a voice calling {A.his} name.")
    s.add("Then {A.name} woke up in {A.his} own bed.", "Suddenly, the sun came in the window and {A.name} woke up.")
    s.add("{A.He} smiled and told {A.his} mom all about the dream.",
          "{A.He} drew a picture of the dream so {A.he} would never forget it.")
    ending(s, A)


def plot_pet_trouble(s: Story) -> None:
    A = s.kid()
    kind, _ = s.pick([("dog", ""), ("puppy", ""), ("cat", ""), ("kitten", ""), ("bunny", ""), ("hamster", "")])
    pet = Who(s._fresh(PET_NAMES), s.pick(["he", "she"]), kind)
    s.ctx.update(A=A, D=pet)
    opening(s, A)
    s.add("{A.Name} had a {kind} named {D.name}.", "{A.Name}'s best friend was {A.his} {kind}, {D.name}.", kind=kind)
    s.add("{D.Name} was {adj}, and {D.he} loved to play.", adj=s.pick(["funny", "fluffy", "naughty", "fast", "sweet"]))
    case = s.pick(["ran", "ate"])
    if case == "ran":
        s.add("One day, the gate was open, and {D.name} ran away!")
        s.add("{A.Name} looked everywhere and called, \"{D.Name}! Come back!\"")
        s.add("{A.He} looked {a} and {b}.", a=s.pick(HOME_SPOTS), b=s.pick(["at the park", "down the street", "by the pond"]))
        found = s.pick([
            "At last, {A.he} found {D.name} at the bakery, eating a bun.",
            "At last, {A.he} heard a sound. {D.Name} was sleeping under a bush.",
            "A kind neighbor came with {D.name} in {A.his} arms.".replace("{A.his}", "her"),
        ])
        s.add(found)
        s.add("{A.Name} hugged {D.name} tight.")
        s.add("From then on, {A.name} always closed the gate.")
    else:
        food = s.pick(["birthday cake", "sandwich", "cookies", "pie", "dinner"])
        s.add("One day, Mom made a {food} and put it on the table.", food=food)
        s.add("When nobody was looking, {D.name} jumped up and ate it!")
        s.add("\"Oh no, {D.name}!\" cried {A.name}.")
        s.add("{D.Name} looked up with big sad eyes and a messy face.")
        s.add("Everyone laughed. They could not be mad at {D.him}.")
        s.add("They made a new {food} together, and this time they put it up high.", food=food)
    ending(s, A)


def plot_show(s: Story) -> None:
    A = s.character(0.2)
    P = s.parent(A)
    act = s.pick(["sing a song", "dance", "play the {m}", "tell a funny joke", "do a magic trick", "read a poem"])
    act = s.fill(act, m=s.pick(MUSIC))
    s.ctx.update(A=A, P=P, act=act)
    opening(s, A)
    s.add("There was going to be a show at school, and {A.name} wanted to {act}.",
          "{A.Name} was going to {act} in the big show.")
    s.add("{A.He} practiced every day after school.", "Every night, {A.he} practiced in front of the mirror.")
    s.add("On the day of the show, {A.name} was very nervous.", "When the day came, {A.name}'s hands were shaking.")
    s.add("\"Just do your best and have fun,\" said {P.name}.")
    slip = s.chance(0.4)
    if slip:
        s.add("In the middle, {A.name} made a mistake and stopped.")
        s.add("{A.He} saw {P.name} smiling, so {A.he} started again.")
    else:
        s.add("{A.Name} stepped on the stage and began.")
    s.add("When {A.he} {A.was} done, everyone clapped and cheered!", "At the end, the whole room clapped.")
    feel(s, A, good=True)
    ending(s, A, "{A.Name} learned that practice and courage go a long way.", 0.6)


def plot_sick_day(s: Story) -> None:
    A = s.character(0.2)
    B = s.character(0.3)
    s.ctx.update(A=A, B=B)
    opening(s, A)
    friend_line(s, A, B)
    sick = s.chance(0.5)
    S, H = (A, B) if sick else (B, A)
    s.ctx.update(S=S, H=H)
    s.add("One morning, {S.name} woke up with a cold.", "One day, {S.name} was sick and had to stay in bed.")
    s.add("{S.His} nose was red, and {S.he} felt {f}.", f=s.pick(["tired", "hot", "sad", "bored", "weak"]))
    s.add("{S.He} could not go outside to play.")
    gift = s.pick(["a bowl of warm soup", "a funny card", "some flowers", "a book with pictures", "a teddy bear"])
    s.add("{H.Name} wanted to make {S.name} feel better.", "{H.Name} missed {H.his} friend.")
    s.add("So {H.he} brought {S.him} {gift}.", gift=gift)
    s.add("{S.Name} smiled. \"Thank you, {H.name}!\"")
    s.add("{H.Name} sat with {S.him} and told stories {t}.", t=s.pick(PLAY_TIME))
    s.add("A few days later, {S.name} felt all better, and they played together again.")
    ending(s, A, "A good friend is there when you are sick or sad.", 0.6)


def plot_patience(s: Story) -> None:
    A = s.character(0.2)
    P = s.parent(A)
    food = s.pick(["cookies", "muffins", "cupcakes", "pie", "bread"])
    s.ctx.update(A=A, P=P, food=food)
    opening(s, A)
    s.add("One afternoon, {P.name} took a tray of {food} out of the oven.")
    s.add("They smelled so good!", "The kitchen smelled sweet and warm.")
    s.add("\"Wait until it cools down,\" said {P.name}." if food in ("pie", "bread")
          else "\"Wait until they cool down,\" said {P.name}.")
    waited = s.chance(0.5)
    if waited:
        s.add("{A.Name} wanted one right now, but {A.he} waited.")
        s.add("{A.He} counted to one hundred and read a book.", "{A.He} played with {A.his} blocks to pass the time.")
        s.add("When the {food} were cool, {A.name} took a bite. It was perfect!".replace("were", "was")
              if food in ("pie", "bread") else "When the {food} were cool, {A.name} took a bite. It was perfect!")
        s.add("{P.Name} said, \"Good job waiting!\"")
        ending(s, A, "{A.Name} learned that good things come to those who wait.", 0.7)
    else:
        s.add("But {A.name} did not wait. {A.He} grabbed one.")
        s.add("\"Ouch! It is too hot!\" {A.he} cried.")
        s.add("{P.Name} put {A.his} hand in cold water.")
        s.add("\"Next time I will wait,\" said {A.name}.")
        s.add("Later, when the {food} were cool, they ate them together.".replace("were cool", "was cool").replace("them", "it")
              if food in ("pie", "bread") else "Later, when the {food} were cool, they ate them together.")
        ending(s, A, "{A.Name} learned that it is worth waiting.", 0.7)


def plot_magic(s: Story) -> None:
    A = s.character(0.25)
    obj = s.pick(["stone", "shell", "coin", "feather", "lamp", "ring", "key", "flower"])
    X = Thing(obj, s.pick(["shiny", "glowing", "little", "sparkly", "golden", "strange"]))
    B = s.character(0.3)
    s.ctx.update(A=A, B=B, X=X)
    opening(s, A)
    s.add("One day, {A.name} found {X.a} {where}.", where=s.pick(["in the grass", "on the beach", "in the woods",
                                                               "under a leaf", "by the river"]))
    s.add("When {A.he} held it, a tiny voice said, \"I can give you one wish!\"",
          "Suddenly {X.the} began to glow. \"Make a wish,\" it said.")
    s.add("{A.Name} thought about all the things {A.he} could wish for.")
    friend_line(s, A, B)
    s.add("But {B.name} was sad because {B.his} {pet} was sick.".replace("{pet}", s.pick(["dog", "cat", "bird", "bunny"])),
          "But {B.name} had lost {B.his} way home and was far from {B.his} family.")
    kind = s.chance(0.6)
    if kind:
        s.add("{A.Name} closed {A.his} eyes and wished for {B.name} to be happy again.")
        s.add("And it came true! {B.Name} was so happy.")
        s.add("{X.The} glowed one last time and said, \"You have a kind heart.\"")
        ending(s, A, "{A.Name} learned that the best wishes are for others.", 0.7)
    else:
        s.add("{A.Name} wished for a big pile of toys.")
        s.add("The toys came, but {A.name} had no one to play with, because {B.name} was still sad.")
        s.add("{A.Name} did not feel happy at all.")
        s.add("So {A.he} gave some toys to {B.name} and helped {B.him}.")
        ending(s, A, "{A.Name} learned that things do not make you happy, friends do.", 0.7)


def plot_lost_in_place(s: Story) -> None:
    A = s.kid()
    P = s.parent(A)
    place, helper, meet = s.pick([
        ("the big market", "a kind lady at the fruit stand", "by the fruit stand"),
        ("the mall", "a guard in a blue hat", "at the front desk"),
        ("the fair", "a man selling balloons", "by the big wheel"),
        ("the zoo", "a zookeeper", "at the gate"),
        ("the beach", "a lifeguard", "at the red tower"),
        ("the park", "a police officer", "by the fountain"),
    ])
    s.ctx.update(A=A, P=P, place=place, helper=helper, meet=meet)
    opening(s, A)
    s.add("One day, {A.name} went to {place} with {P.name}.")
    s.add("There were so many people and so many things to see.")
    s.add("{A.Name} saw {sight} and walked over to look.", sight=s.pick(["a funny clown", "a big dog", "a man juggling",
                                                                       "a toy shop", "a bubble machine"]))
    s.add("When {A.he} turned around, {P.name} was gone!")
    s.add("{A.Name} felt scared and wanted to cry.", "{A.Name}'s heart beat fast.")
    asked = s.chance(0.6)
    if asked:
        s.add("Then {A.he} remembered what {P.name} said: \"If you get lost, ask someone who works there.\"")
        s.add("{A.He} went to {helper} and said, \"I can't find my {role}.\"", role=P.kind)
        s.add("The helper took {A.him} {meet} and called for {P.name}.")
    else:
        s.add("{A.He} stayed right where {A.he} {A.was}, just like {P.name} had told {A.him}.")
        s.add("{A.He} stood still and looked for {P.name}'s {c} coat.", c=s.pick(COLORS))
    s.add("Soon {P.name} came running and gave {A.him} the biggest hug.")
    ending(s, A, "{A.Name} learned to stay close and to ask for help when lost.", 0.6)


def plot_trade(s: Story) -> None:
    A = s.character(0.2)
    B = s.character(0.3)
    X, Y = s.toy(), s.toy()
    if X.noun == Y.noun:
        Y = Thing(s.pick([t for t in TOYS if t != X.noun]), s.pick(TOY_ADJ))
    s.ctx.update(A=A, B=B, X=X, Y=Y)
    opening(s, A)
    friend_line(s, A, B)
    s.add("{A.Name} had {X.a}, and {B.name} had {Y.a}.")
    s.add("One day, {A.name} said, \"Let's trade!\"", "{A.Name} wanted {Y.the} so much.")
    s.add("So {A.name} gave {B.name} {X.the}, and {B.name} gave {A.name} {Y.the}.")
    s.add("At first, {A.name} was happy with {Y.the}.")
    back = s.chance(0.6)
    if back:
        s.add("But soon {A.he} missed {A.his} old {X.noun}.", "But that night, {A.name} missed {X.the}.")
        s.add("{A.He} asked {B.name}, \"Can we trade back?\"")
        s.add("{B.Name} smiled and said, \"Yes! I missed my {Y.noun} too.\"")
        s.add("They traded back, and they both felt better.")
        ending(s, A, "{A.Name} learned to be thankful for what {A.he} already had.", 0.6)
    else:
        s.add("{A.Name} and {B.name} both loved their new toys.")
        s.add("Sometimes they played with both toys together.")
        ending(s, A, "Trading can be fun when both friends agree.", 0.6)


def plot_snow_day(s: Story) -> None:
    A = s.character(0.15)
    B = s.character(0.3)
    nose = s.pick(["a carrot", "a red button", "a small pinecone", "a stick"])
    s.ctx.update(A=A, B=B, nose=nose)
    opening(s, A)
    s.add("One winter morning, {A.name} looked out the window. Everything was white!",
          "It snowed all night, and in the morning the ground was white.")
    s.add("{A.He} put on {A.his} warm coat, {A.his} hat and {A.his} mittens.")
    s.add("{A.Name} ran outside with {A.his} friend {B.called}.")
    s.add("They rolled a big ball of snow, then a middle one, then a small one.")
    s.add("They used {nose} for the nose and two stones for the eyes.")
    if s.chance(0.5):
        s.add("{A.Name} put {A.his} own scarf on the snowman so it would not be cold.")
    s.add("Then they made snow angels and had a snowball fight.",
          "Then they went down the hill on a sled, again and again.")
    s.add("When their noses were red, they went inside for hot cocoa.")
    ending(s, A)


def plot_learn_skill(s: Story) -> None:
    A = s.character(0.1)
    P = s.parent(A)
    skill, fall = s.pick([
        ("ride a bike", "{he} wobbled and fell"),
        ("swim", "{he} swallowed some water and coughed"),
        ("tie {his} shoes", "the laces got all tangled"),
        ("whistle", "only air came out"),
        ("jump rope", "the rope caught {his} feet"),
        ("skate", "{he} slipped and sat down hard"),
        ("read a whole book", "the words were too long"),
    ])
    skill = s.fill(skill, his=A.his)
    fall = s.fill(fall, he=A.he, his=A.his)
    s.ctx.update(A=A, P=P, skill=skill, fall=fall)
    opening(s, A)
    s.add("{A.Name} really wanted to learn to {skill}.", "All the big kids could {skill}, and {A.name} wanted to learn too.")
    s.add("{P.Name} said, \"I will help you.\"")
    s.add("The first time {A.name} tried, {fall}.")
    quit_ = s.chance(0.4)
    if quit_:
        s.add("\"I give up!\" said {A.name}, and {A.he} went inside.")
        s.add("{P.Name} sat with {A.him}. \"Nobody can do it on the first try,\" {P.he} said.")
        s.add("So {A.name} went back out and tried again.")
    else:
        s.add("{A.Name} did not give up. {A.He} tried again and again.")
    s.add("Every day {A.he} got a little better.", "Day after day, {A.he} practiced.")
    s.add("Then one day, {A.he} did it! {A.Name} could {skill}!")
    s.add("\"I did it!\" {A.he} shouted, and {P.name} clapped.")
    ending(s, A, "{A.Name} learned that practice makes things easier.", 0.7)


def plot_job(s: Story) -> None:
    A = s.kid()
    job, task, tool = s.pick([
        ("firefighter", "put out fires", "a big red truck"),
        ("doctor", "help sick people", "a stethoscope"),
        ("baker", "make bread and cakes", "a big oven"),
        ("farmer", "grow food", "a green tractor"),
        ("vet", "help sick animals", "a box of bandages"),
        ("pilot", "fly planes", "a shiny plane"),
        ("builder", "build houses", "a yellow hard hat"),
        ("teacher", "help children learn", "a box of chalk"),
        ("zookeeper", "feed the animals", "a bucket of fish"),
        ("astronaut", "fly to the stars", "a white space suit"),
    ])
    s.ctx.update(A=A, job=job, task=task, tool=tool, a=_article(job))
    opening(s, A)
    s.add("{A.Name} wanted to be {a} {job} when {A.he} grew up.")
    s.add("{A.He} wanted to {task}.")
    s.add("One day, {A.his} class visited a real {job}.", "One day, {A.name} met a real {job} in town.")
    s.add("The {job} showed {A.him} {tool}.")
    s.add("\"Can I help?\" asked {A.name}.")
    s.add("The {job} smiled and let {A.him} help for the day.", "The {job} gave {A.him} a small job to do.")
    if s.chance(0.5):
        s.add("It was hard work, but {A.name} did not mind.")
    s.add("At the end of the day, the {job} said, \"You will be a great {job} one day.\"")
    feel(s, A, good=True)
    ending(s, A)


def plot_picnic(s: Story) -> None:
    A = s.character(0.2)
    B = s.character(0.3)
    food = s.pick(PLURAL_FOODS)
    s.ctx.update(A=A, B=B, food=food)
    opening(s, A)
    s.add("{time}, {A.name} and {B.called} went on a picnic.", time=s.pick(FAIR_TIMES))
    s.add("They put a big blanket on the grass {where}.", where=s.pick(["by the lake", "under a tree", "on the hill",
                                                                   "in the park", "in the meadow"]))
    s.add("They had sandwiches, juice and {food}.")
    trouble = s.pick(["ants", "birds", "a dog", "the wind"])
    s.ctx["trouble"] = trouble
    if trouble == "ants":
        s.add("Soon a line of little ants came marching to the {food}.")
    elif trouble == "birds":
        s.add("Soon some birds landed next to them and looked at the {food}.")
    elif trouble == "a dog":
        s.add("Soon a hungry dog came running and sniffed the {food}.")
    else:
        s.add("Then the wind blew the napkins and cups all over the grass.")
    share = s.chance(0.6) and trouble != "the wind"
    if share:
        s.add("{A.Name} laughed and said, \"There is enough for everyone!\"")
        s.add("{A.He} put a few {food} on the grass for the visitors.")
    elif trouble == "the wind":
        s.add("{A.Name} and {B.name} ran and caught everything.")
        s.add("They put stones on the blanket so it would stay down.")
    else:
        s.add("They moved the blanket to a new spot.")
    s.add("Then they ate and looked at the clouds.", "After lunch, they lay on the blanket and watched the clouds.")
    s.add("One cloud looked like a {shape}!", shape=s.pick(["rabbit", "dragon", "boat", "heart", "bear", "castle"]))
    ending(s, A)


HAIR = _words("curly straight long short brown red black golden dark")
CLOTHES = _phrases("hat | scarf | boots | jacket | dress | shirt | cap | sweater | raincoat | shoes | overalls")
ANIMAL_HOMES = _phrases(
    "in a cozy nest high in a tree | in a little hole under an old oak | in a warm barn | "
    "in a small den by the river | under a big green bush | in a burrow under the hill | "
    "in a hollow log in the woods | near a quiet pond"
)
KID_DETAILS = _phrases(
    "{A.He} had {hair} hair and a big smile. | "
    "{A.He} lived in a {tadj} house with a {color} door. | "
    "{A.He} always wore {A.his} {color} {clothes}. | "
    "{A.Name} was {age} years old. | "
    "{A.His} favorite color was {color}. | "
    "{A.His} favorite food was {foods}. | "
    "{A.He} wanted to be a {job} one day. | "
    "{A.He} lived with {A.his} family near {place}. | "
    "Everyone liked {A.name} because {A.he} {A.was} so {trait}."
)
ANIMAL_DETAILS = _phrases(
    "{A.He} lived {home}. | "
    "{A.He} had bright eyes and a {trait} face. | "
    "{A.His} favorite food was {foods}. | "
    "All the animals liked {A.name} because {A.he} {A.was} so {trait}. | "
    "{A.He} lived with {A.his} family {home}."
)
_SENTENCE_END = re.compile(r'(?<=[.!?])"?\s+(?=["A-Z])')


def count_sentences(text: str) -> int:
    """Sentences in a story; a quote followed by "said X." counts once."""
    return len(_SENTENCE_END.split(text.strip())) if text.strip() else 0


def add_detail(s: Story) -> None:
    """Insert one describing sentence about the hero right after the opening line."""
    A = s.ctx["A"]
    animal = A.kind not in ("girl", "boy", "kid")
    pool = ANIMAL_DETAILS if animal else KID_DETAILS
    if animal and A.sound:
        pool = pool + ["When {A.he} {A.was} happy, {A.he} said, \"{sound}!\""]
    prep, place = s.pick(PLACES)
    line = _cap(s.fill(
        s.pick(pool), hair=s.pick(HAIR), tadj=s.pick(TOWN_ADJ), color=s.pick(COLORS),
        clothes=s.pick(CLOTHES), age=s.pick(["four", "five", "six", "seven", "eight"]),
        foods=s.pick(PLURAL_FOODS), job=s.pick(JOBS).replace("a ", ""),
        place=place if place.startswith("the ") else "the " + place.replace("a ", ""),
        trait=s.pick(["kind", "funny", "friendly", "gentle", "helpful", "cheerful", "clever", "polite"]),
        home=s.pick(ANIMAL_HOMES), sound=_cap(A.sound or "hi"),
    ))
    s.lines.insert(1, line)


PLOTS: list[Callable[[Story], None]] = [
    plot_lost_object, plot_new_friend, plot_fear, plot_sharing, plot_race, plot_weather,
    plot_parent_lesson, plot_help_animal, plot_broken_toy, plot_trip, plot_birthday,
    plot_misunderstanding, plot_baking, plot_garden, plot_night_noise, plot_first_school,
    plot_treasure, plot_sibling, plot_truth, plot_ask_help, plot_clean_room, plot_gift_for_parent,
    plot_fable, plot_build, plot_kite, plot_lonely, plot_dream, plot_pet_trouble, plot_show,
    plot_sick_day, plot_patience, plot_magic, plot_lost_in_place, plot_trade, plot_snow_day,
    plot_learn_skill, plot_job, plot_picnic,
]


_WORD = re.compile(r"[a-z']+")


def distinct_words(texts) -> set[str]:
    """Lower-cased word types (letters and apostrophes) across texts."""
    out: set[str] = set()
    for t in texts:
        out.update(_WORD.findall(t.lower()))
    return out
