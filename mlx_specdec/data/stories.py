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

Everything is deterministic for a given seed: story i of split s is written
from ``random.Random(f"{seed}:{s}:{i}")``, so the "train" and "valid" splits
come from disjoint seed streams and can be regenerated anywhere.
"""

from __future__ import annotations

import random
import re
from typing import Callable, Iterator

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
SMALL_ANIMALS = _words(
    "bird kitten puppy bunny duckling chick frog squirrel hedgehog mouse turtle butterfly "
    "ladybug snail lamb fawn baby owl baby fox"
).copy()
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
    "favorite special sparkly striped spotted wooden tiny fuzzy bright"
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
WEATHER = _words("sunny warm bright windy cloudy cool rainy snowy cold foggy")
TIMES = _phrases(
    "One day | One morning | One sunny day | One sunny morning | One rainy day | "
    "One cold morning | One warm afternoon | One windy day | One evening | One summer day | "
    "One spring morning | One fall afternoon | One winter day | Last week | On Saturday | "
    "On Monday | Early one morning | One bright day | One snowy morning | One quiet evening"
)
TOWN_ADJ = _words("small quiet busy happy sunny little green pretty old friendly cozy")
TOWN = _phrases("town | village | city | house | farm | forest | land | valley | neighborhood")
ADVERBS = _words(
    "quickly slowly softly carefully happily gently loudly quietly bravely proudly "
    "sleepily suddenly finally slowly"
)
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
    ("riding a bike", "{he} was afraid to fall", "ride down the path"),
    ("the big stage", "so many people were watching", "sing a song on the stage"),
    ("the new school", "{he} did not know anyone", "walk into the class"),
    ("the noisy vacuum", "it roared like a monster", "push the vacuum across the rug"),
    ("the deep snow", "{he} sank up to {his} knees", "jump into the snow"),
]
MUSIC = _phrases("piano | drum | flute | guitar | violin | trumpet | harp | horn | bell | xylophone")
FLOWERS = _words("roses tulips daisies sunflowers lilies violets poppies daffodils")
SKY_THINGS = _phrases("the moon | the stars | a rainbow | the sun | a shooting star | the clouds")
VEHICLES = _phrases("car | bus | train | boat | plane | truck | tractor | ship | rocket | helicopter")
GAMES = _phrases("tag | hide and seek | catch | jump rope | hopscotch | ball | house | pirates | school")
SIZES = _words("big little tiny huge tall")
SOUNDS = _words("crash bang thud pop boom splash snap crack")
PLAY_ADVERB = _words("all day | all afternoon | until dinner | until the sun went down | for a long time".replace(" | ", "|"))
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

    # str.format can't reach attributes named like keywords, hence the aliases
    @property
    def is_word(self) -> str:
        return self.is_


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
        pron = "she" if self.rng.random() < 0.5 else "he"
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
        "{time}, {A.a} named {A.name} woke up early.",
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
    time = s.pick(TIMES)
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
    why = s.fill(why, he=A.he, his=A.his, himself=A.himself)
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
            "The next day, {A.name} felt ready, and {A.he} was able to {act}.",
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
        "{B.Name} came by and looked at {X.the}.",
        "Then {A.his} friend {B.name} came to see {A.him}.",
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
        "One day, {B.name} said, \"Let's have a race {prep} {place}!\"",
        "{A.Name} and {B.name} decided to race {prep} {place}.",
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
    case = s.pick(["took", "ignored", "laughed"])
    if case == "took":
        s.add("One day, {A.name} could not find {A.his} {X.phrase}.")
        s.add("Then {A.he} saw {B.name} holding {X.a} just like it.", "{A.He} saw {X.a} in {B.name}'s bag.")
        s.add("\"You took my {X.noun}!\" said {A.name}.", "{A.Name} was angry. \"That is mine!\" {A.he} shouted.")
        s.add("\"No, this one is mine,\" said {B.name}. \"My {grown} gave it to me.\"",
              grown=s.pick(["mom", "dad", "grandma", "grandpa", "aunt", "uncle"]))
        s.add(
            "When {A.name} got home, {A.he} found {A.his} own {X.noun} {spot}.",
            "Later, {A.name} found {A.his} {X.noun} {spot}.",
            spot=s.pick(HOME_SPOTS),
        )
        s.add("{A.Name} felt bad. {A.He} went to {B.name} and said sorry.",
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


PLOTS: list[Callable[[Story], None]] = [
    plot_lost_object, plot_new_friend, plot_fear, plot_sharing, plot_race, plot_weather,
    plot_parent_lesson, plot_help_animal, plot_broken_toy, plot_trip, plot_birthday,
    plot_misunderstanding,
]


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------


def generate_story(rng: random.Random) -> str:
    """Write one story with the given random generator."""
    s = Story(rng)
    rng.choice(PLOTS)(s)
    return s.text()


def iter_stories(split: str = "train", n: int | None = None, seed: int = 0) -> Iterator[str]:
    """Stream bundled stories, deterministic for (split, seed); n=None streams forever.

    Story i of a split is written from its own generator seeded with
    f"{seed}:{split}:{i}", so splits are disjoint seed streams, any story can be
    regenerated alone and the stream is the same however much of it is read.
    """
    if not isinstance(split, str) or not split:
        from ..errors import SpecDecError

        raise SpecDecError(f"split must be a non-empty string such as 'train' or 'valid', got {split!r}")
    i = 0
    while n is None or i < n:
        yield generate_story(random.Random(f"{seed}:{split}:{i}"))
        i += 1


_WORD = re.compile(r"[a-z']+")


def distinct_words(texts) -> set[str]:
    """Lower-cased word types (letters and apostrophes) across texts."""
    out: set[str] = set()
    for t in texts:
        out.update(_WORD.findall(t.lower()))
    return out
