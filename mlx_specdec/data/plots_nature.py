"""Nature, animal, weather, sea, sky, camping, farm and fable plots.

A sibling of the plots in :mod:`mlx_specdec.data.stories`: each function here
takes a :class:`~mlx_specdec.data.stories.Story`, draws its cast, sets
``s.ctx["A"]`` to the hero and writes one short arc in the TinyStories
register. The module brings its own lexicon (birds, bugs, sea things, trees,
plants, weather words, sounds, farm and camping words) so that a corpus mixing
these plots with the old ones has a far broader vocabulary.

Everything is drawn from the story's generator (``s.rng``, ``s.pick``,
``s.chance``), so a story stays a pure function of its seed.
"""

from __future__ import annotations

from typing import Callable

from .stories import PET_NAMES, Story, Who, _article, _cap, ending

__all__ = ["PLOTS"]


def _words(s: str) -> list[str]:
    return s.split()


def _phrases(s: str) -> list[str]:
    return [p.strip() for p in s.split("|") if p.strip()]


# ---------------------------------------------------------------------------
# Lexicon
# ---------------------------------------------------------------------------

CRITTER_NAMES = PET_NAMES + _words(
    "Bramble Thistle Juniper Sorrel Tansy Fennel Willow Barley Basil Cricket Dusty Ember "
    "Fidget Hazelnut Jasper Kipper Lark Marigold Nettle Oakley Pumpkin Quill Rascal Saffron "
    "Tumble Umber Velvet Wren Yarrow Zephyr Pippin Skipper Tuffet Mossy Puddles Sprout "
    "Briar Chestnut Cinder Dandelion Flint Gorse Heather Ivy Truffle Wisp"
)

BIRDS = _phrases(
    "robin | sparrow | wren | blue jay | finch | woodpecker | heron | gull | pelican | "
    "swallow | starling | magpie | kingfisher | goldfinch | cardinal | blackbird | thrush"
)
BUGS = _phrases(
    "beetle | cricket | grasshopper | caterpillar | firefly | dragonfly | moth | worm | "
    "spider | bumblebee | ant | ladybug | snail | centipede | pill bug | water strider"
)
WOODLAND = _phrases(
    "squirrel | rabbit | hedgehog | mouse | fox | badger | mole | deer | raccoon | "
    "chipmunk | vole | otter | beaver | skunk | porcupine | shrew | weasel"
)
POND = _phrases("frog | toad | duck | newt | turtle | otter | beaver | heron | duckling")
FARM_ANIMALS = _phrases(
    "hen | rooster | goat | sheep | cow | pig | horse | donkey | goose | duck | pony | lamb | calf"
)
SEA_CREATURES = _phrases(
    "starfish | hermit crab | little crab | sea snail | tiny fish | sea urchin | "
    "shrimp | periwinkle | baby octopus | little eel"
)
BEACH_FINDS = _phrases(
    "a pink shell | a round white shell | a smooth green pebble | a piece of sea glass | "
    "a long strand of seaweed | a sand dollar | a spiral shell | a piece of driftwood | "
    "a striped stone | a crab claw | a tiny conch | a shiny mussel shell"
)
TREES = _words("oak maple willow pine birch elm cedar chestnut beech aspen spruce apple cherry")
PLANTS = _phrases(
    "ferns | moss | clover | thistles | dandelions | buttercups | bluebells | foxgloves | "
    "reeds | cattails | wild mint | nettles | brambles | heather | lavender | sweet peas"
)
GARDEN_CROPS = _phrases(
    "peas | beans | radishes | lettuce | carrots | beets | pumpkins | cucumbers | "
    "sunflowers | zucchini | turnips | onions | spinach | squash | strawberries"
)
WILD_FOODS = _phrases(
    "blueberries | blackberries | raspberries | hazelnuts | acorns | pine nuts | "
    "wild plums | rose hips | clover leaves | sunflower seeds | crab apples | chestnuts"
)
CAMP_GEAR = _phrases(
    "a flashlight | a lantern | a sleeping bag | a map | a compass | a water bottle | "
    "a pocket knife | a warm blanket | a bag of marshmallows | a rope | a whistle"
)
CAMP_SNACKS = _phrases(
    "toasted marshmallows | hot cocoa | roasted corn | beans from a pot | "
    "warm bread | baked potatoes | trail mix | apple slices | s'mores"
)
SKY_THINGS = _phrases(
    "the moon | a shooting star | the Big Dipper | a bright planet | the Milky Way | "
    "a blinking satellite | a star shaped like a kite | three stars in a row"
)
WEATHER_WORDS = _phrases(
    "drizzle | fog | mist | hail | breeze | gust | frost | sleet | thunder | lightning | "
    "rainbow | puddle | cloud | storm | sunshine | snowflake | dew | icicle"
)
GUSTY = _words("gusty blustery breezy stormy chilly frosty foggy misty drizzly muggy")
NATURE_ADJ = _words(
    "speckled dappled mossy muddy sandy rocky crooked hollow prickly slippery glossy "
    "velvety feathery tangled twisty gnarled dewy damp crisp frosty golden rusty "
    "silvery grassy leafy shady sunny windy wild"
)
CRITTER_ADJ = _words(
    "little small tiny young gray brown spotted speckled fuzzy plump nimble bold timid "
    "scruffy sleek chubby bright-eyed round quick"
)
SOUNDS = _phrases(
    "a rustle in the bushes | a crackle of twigs | a soft splash | a low croak | "
    "a loud chirp | a sharp snap | a long hoot | a tiny squeak | a slow creak | "
    "a gentle tapping | a loud thump | a buzzing hum"
)
TRAIL_SPOTS = _phrases(
    "a fallen log | a mossy rock | a shallow stream | a patch of ferns | a fork in the path | "
    "a wooden bridge | a thicket of brambles | an old stone wall | a muddy ditch | "
    "a grassy bank | a row of tall pines | a sunny clearing"
)
SEASON_TIMES = {
    "spring": _phrases(
        "It was the first warm day of spring. | The snow had melted, and spring was here. | "
        "Buds were popping open on every branch. | It was early spring, and the ground was soft."
    ),
    "summer": _phrases(
        "It was a hot summer day. | The summer sun was high and bright. | "
        "It was the middle of summer, and the days were long. | The air was warm and sticky."
    ),
    "fall": _phrases(
        "It was a crisp fall morning. | The leaves had turned red and gold. | "
        "Autumn had come, and the wind smelled like apples. | Fall was here, and the days were getting shorter."
    ),
    "winter": _phrases(
        "It was the coldest day of winter. | Snow lay thick on the ground. | "
        "Frost covered every window. | Winter had come, and the pond was white and still."
    ),
}
GOOD = _words("happy glad proud thankful cheerful calm joyful pleased relieved delighted")
BAD = _words("sad scared worried upset lonely nervous grumpy cross afraid gloomy")


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _critter(s: Story, kinds: list[str], pron: str | None = None) -> Who:
    """An animal of one of `kinds`, with a name and a describing word."""
    kind = s.pick(kinds)
    if pron is None:
        pron = "she" if kind in ("hen", "cow", "sheep") else s.pick(["he", "she"])
    if kind == "rooster":
        pron = "he"
    return Who(s._fresh(CRITTER_NAMES), pron, kind, s.pick(CRITTER_ADJ))


def _feel(s: Story, W: Who, good: bool) -> None:
    f = s.pick(GOOD if good else BAD)
    s.add("{W.Name} felt {f}.", "{W.Name} was very {f}.", "{W.He} felt so {f}.", W=W, f=f)


def _intro(s: Story, A: Who, *extra: str, **kw) -> None:
    """A varied first line; plot-specific openings can be passed as extra options."""
    opts = [
        "{A.Name} was {A.a} who lived {home}.",
        "Down by the {near} lived {A.a} named {A.name}.",
        "There was once {A.a} called {A.name}.",
        "Once upon a time, there was {A.a} named {A.name}.",
        "This is a story about {A.a} named {A.name}.",
    ]
    animal = A.kind not in ("girl", "boy", "kid")
    home = s.pick([
        "in a hollow at the foot of an old {tree}", "near a quiet stream", "under a big {tree} tree",
        "at the edge of the woods", "in a burrow under a grassy hill", "in a nest of dry leaves",
    ] if animal else [
        "in a little house by the woods", "at the end of a long dirt road", "near the sea",
        "in a yellow house with a big garden", "on a farm by the hills", "in a cabin by a lake",
    ]).replace("{tree}", s.pick(TREES))
    s.add(*(opts + list(extra)), home=home, near=s.pick(["river", "pond", "sea", "old mill", "creek"]), **kw)


def _close(s: Story, A: Who, own: list[str], moral: str | None = None, p_own: float = 0.65, **kw) -> None:
    """End with one of the plot's own closing lines, or a moral, or a generic ending."""
    if s.chance(p_own):
        s.add(*own, **kw)
    else:
        ending(s, A, moral, 0.6)


# ---------------------------------------------------------------------------
# Plots
# ---------------------------------------------------------------------------


def plot_fireflies(s: Story) -> None:
    A = s.kid()
    P = s.parent(A)
    s.ctx.update(A=A, P=P, jar=s.pick(["glass jar", "old jam jar", "pickle jar", "clear jar"]))
    s.add(
        "It was a warm summer evening, and {A.name} was playing in the yard.",
        "The sun had just gone down behind the hills, and {A.name} was still outside.",
        "{A.Name} sat on the porch steps after dinner.",
    )
    s.add(
        "Tiny lights began to blink in the grass.",
        "Little green lights were blinking all over the yard.",
        "\"Look!\" cried {A.name}. \"The grass is full of tiny lights!\"",
    )
    s.add(
        "\"Those are fireflies,\" said {P.name}.",
        "{P.Name} smiled. \"They're fireflies,\" {P.he} said.",
        "\"Fireflies,\" {P.name} whispered. \"They come out on warm nights.\"",
    )
    s.add(
        "{A.Name} grabbed {jar} and ran into the yard.",
        "{A.Name} found {jar} and chased the lights across the lawn.",
        jar=_article(s.ctx["jar"]) + " " + s.ctx["jar"],
    )
    s.add(
        "Soon there were five fireflies glowing inside the {jar}.",
        "{A.He} caught one, then two, then six, and the {jar} glowed like a lamp.",
    )
    if s.chance(0.5):
        s.add(
            "But the fireflies stopped blinking. They crawled slowly up the glass.",
            "After a while, the lights in the jar grew dim.",
        )
        s.add(
            "\"I think they miss the sky,\" said {A.name} softly.",
            "\"Are they sad?\" asked {A.name}.",
        )
        s.add(
            "{A.Name} opened the lid, and the fireflies floated up into the dark.",
            "{A.He} took off the lid. One by one, the fireflies flew away.",
        )
        s.add(
            "They blinked brighter than ever, as if they were saying thank you.",
            "Soon the whole yard was twinkling again.",
        )
        _close(s, A, ["{A.Name} watched them dance until it was time for bed.",
                      "That night, {A.name} dreamed of tiny green stars."],
               "Wild things are happiest when they are free.")
    else:
        s.add(
            "\"Can I keep them?\" asked {A.name}.",
            "\"Can they sleep in my room?\" {A.name} asked.",
        )
        s.add(
            "\"Only for a minute,\" said {P.name}. \"Then they need to go home.\"",
            "\"Just for a little while,\" {P.name} said. \"Fireflies belong outside.\"",
        )
        s.add(
            "{A.Name} held the jar up to {A.his} face and watched them glow.",
            "{A.Name} counted the blinks. One, two, three!",
        )
        s.add(
            "Then {A.he} opened the lid and let them all go.",
            "Then {A.he} tipped the jar, and the fireflies drifted away over the fence.",
        )
        _close(s, A, ["\"Good night, fireflies,\" {A.name} called.",
                      "{A.Name} waved until the last light was gone."],
               "It is kind to let little creatures go home.")


def plot_shooting_star(s: Story) -> None:
    A = s.kid()
    P = s.parent(A)
    sky = s.pick(SKY_THINGS)
    s.ctx.update(A=A, P=P, sky=sky)
    s.add(
        "{A.Name} and {P.name} carried a blanket to the top of the hill.",
        "One clear night, {A.name} felt a hand on {A.his} shoulder. \"Come outside,\" whispered {P.name}.",
        "On the last night of summer, {A.name} was allowed to stay up late.",
    )
    s.add(
        "The sky was black and full of stars.",
        "There were so many stars that {A.name} could not count them.",
        "Above them, the stars were sparkling like sugar on a dark blanket.",
    )
    s.add(
        "{P.Name} pointed up. \"Can you see {sky}?\"",
        "\"That is {sky},\" said {P.name}, pointing.",
    )
    s.add(
        "{A.Name} looked and looked. \"I see it!\" {A.he} said.",
        "\"Where?\" asked {A.name}. Then {A.he} saw it too.",
    )
    if s.chance(0.5):
        s.add(
            "Suddenly, a bright streak flashed across the sky.",
            "Just then, a shooting star zipped over the trees.",
        )
        s.add(
            "\"Make a wish!\" said {P.name}.",
            "\"Quick, make a wish,\" {P.name} whispered.",
        )
        s.add(
            "{A.Name} closed {A.his} eyes tight and wished.",
            "{A.Name} made a wish, but {A.he} didn't say it out loud.",
        )
        s.add(
            "\"What did you wish for?\" asked {P.name}. {A.Name} just smiled.",
            "\"It's a secret,\" said {A.name} with a grin.",
        )
    else:
        s.add(
            "They waited a long time for a shooting star, but none came.",
            "{A.Name} hoped to see a shooting star, but the sky stayed still.",
        )
        s.add(
            "\"That's all right,\" said {A.name}. \"The stars are pretty anyway.\"",
            "{A.Name} yawned. \"Can we come back tomorrow?\" {A.he} asked.",
        )
        s.add(
            "An owl hooted softly from the trees, and the crickets sang.",
            "The grass was cool, and the crickets were singing.",
        )
    _close(s, A, ["{P.Name} carried {A.name} home, fast asleep.",
                  "That night, the stars seemed to shine just for {A.name}.",
                  "{A.Name} fell asleep dreaming of faraway planets."],
           "The night sky is full of wonders if you stop to look.")


def plot_camp_rain(s: Story) -> None:
    A = s.kid()
    P = s.parent(A)
    s.ctx.update(A=A, P=P, gear=s.pick(CAMP_GEAR), snack=s.pick(CAMP_SNACKS))
    s.add(
        "{A.Name} and {P.name} went camping by a lake.",
        "It was {A.name}'s first time camping in the woods.",
        "{A.Name} had packed {gear}, a toothbrush and a book for the camping trip.",
    )
    s.add(
        "They set up a green tent under the tall pines.",
        "{P.Name} showed {A.him} how to hammer the tent pegs into the ground.",
    )
    s.add(
        "For dinner they had {snack} by the fire.",
        "They sat by the campfire and ate {snack}.",
    )
    s.add(
        "Then the wind began to blow, and big drops of rain fell.",
        "But soon, dark clouds rolled in and thunder rumbled far away.",
        "Suddenly, a cold drop hit {A.name}'s nose, and then another.",
    )
    s.add("They ran into the tent and zipped the door shut.",
          "They grabbed their things and crawled into the tent.")
    if s.chance(0.5):
        s.add(
            "Drip, drip, drip went the water through a hole in the roof!",
            "Soon a little puddle was growing in the corner of the tent.",
        )
        s.add(
            "\"What do we do?\" asked {A.name}.",
            "\"Oh no! My sleeping bag is getting wet!\" {A.name} cried.",
        )
        s.add(
            "{A.Name} had an idea and put a cooking pot under the drip.",
            "{A.Name} found a plastic bag and stuffed it into the hole.",
        )
        s.add(
            "\"Clever thinking,\" said {P.name}, and they both laughed.",
            "\"You fixed it!\" {P.name} said with a big grin.",
        )
    else:
        s.add(
            "The rain drummed on the tent, but inside it was warm and dry.",
            "Rain pattered on the roof, but the tent kept them dry.",
        )
        s.add(
            "{P.Name} switched on the lantern and told a funny story.",
            "They played cards by the light of the lantern.",
        )
        s.add(
            "\"I like the sound of rain,\" {A.name} whispered.",
            "\"It sounds like a drum,\" said {A.name}.",
        )
    s.add("By morning the sky was clear, and the lake was shining.",
          "In the morning, the birds were singing and the sun was out.")
    _close(s, A, ["Camping in the rain turned out to be an adventure.",
                  "{A.Name} couldn't wait to go camping again."],
           "A little rain can't spoil a good adventure.")


def plot_camp_sound(s: Story) -> None:
    A = s.kid()
    B = s.kid()
    sound = s.pick(SOUNDS)
    who, what = s.pick([
        ("a raccoon", "trying to open the snack box"),
        ("a fat porcupine", "chewing on a stick"),
        ("a little skunk", "sniffing around the fire"),
        ("a deer", "nibbling the leaves by the tent"),
        ("an owl", "sitting on a low branch"),
        ("a family of hedgehogs", "snuffling for beetles"),
    ])
    s.ctx.update(A=A, B=B, sound=sound, who=who, what=what)
    s.add(
        "{A.Name} and {B.name} were camping in the backyard of {A.name}'s grandpa.",
        "At summer camp, {A.name} shared a tent with a friend named {B.name}.",
        "{A.Name} and {A.his} friend {B.name} slept in a tent under the stars.",
    )
    s.add(
        "The campfire had burned down to glowing coals.",
        "It was very late, and the woods were dark.",
    )
    s.add(
        "Then they heard {sound}.",
        "All at once, there was {sound} right outside the tent.",
    )
    s.add(
        "\"Did you hear that?\" whispered {B.name}.",
        "\"What was that?\" {B.name} asked in a tiny voice.",
        "{B.Name} grabbed {A.name}'s arm. \"There's something out there!\"",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} was scared too, but {A.he} picked up the flashlight.",
            "\"Let's look,\" said {A.name}, even though {A.his} knees were shaking.",
        )
        s.add(
            "{A.He} opened the tent flap just a little and shone the light outside.",
            "Slowly, {A.name} unzipped the door and peeked out.",
        )
    else:
        s.add(
            "They hid under their sleeping bags and held their breath.",
            "Neither of them wanted to move.",
        )
        s.add(
            "After a while, they were brave enough to peek out together.",
            "At last, {A.name} counted to three, and they both looked out.",
        )
    s.add(
        "It was {who}, {what}!",
        "There sat {who}, {what}.",
    )
    s.add(
        "{B.Name} started to giggle. \"It's just {who}!\"",
        "\"It's not a monster at all,\" laughed {A.name}.",
    )
    _close(s, A, ["The two friends fell asleep smiling.",
                  "After that, the night sounds did not seem scary at all.",
                  "In the morning, they told everyone about their night visitor."],
           "Many scary sounds have a small and gentle answer.")


def plot_tide_pool(s: Story) -> None:
    A = s.kid()
    crit = s.pick(SEA_CREATURES)
    find = s.pick(BEACH_FINDS)
    s.ctx.update(A=A, crit=crit, find=find, acrit=_article(crit) + " " + crit)
    s.add(
        "The tide was out, and the beach was wide and wet.",
        "{A.Name} loved the beach best when the tide was low.",
        "Early in the morning, {A.name} walked along the beach in {A.his} rubber boots.",
    )
    s.add(
        "Between the rocks there were little pools of water, and {A.name} wanted to look in every one.",
        "{A.Name} climbed over the slippery rocks to look into the tide pools.",
    )
    s.add(
        "In one pool {A.he} found {find}.",
        "First {A.he} found {find} and put it in {A.his} bucket.",
    )
    s.add(
        "Then something moved. It was {acrit}!",
        "Then {A.name} saw {acrit} hiding under the seaweed.",
    )
    s.add(
        "\"Hello, little one,\" {A.name} whispered.",
        "\"Wow!\" said {A.name}. \"You are so small.\"",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} wanted to take the {crit} home in {A.his} bucket.",
            "\"I could keep you in a bowl,\" said {A.name}.",
        )
        s.add(
            "But then {A.he} thought about it. The {crit} needed the sea.",
            "But the {crit} tried to hide, and {A.name} knew it was afraid.",
        )
        s.add(
            "So {A.he} left it in the pool where it belonged.",
            "{A.He} gently let it go back under the seaweed.",
        )
    else:
        s.add(
            "{A.He} watched it for a long time without touching it.",
            "{A.Name} lay on the rock and watched the {crit} explore the pool.",
        )
        s.add(
            "Soon the waves came creeping back over the sand.",
            "Then {A.he} heard the waves getting closer. The tide was coming in.",
        )
        s.add(
            "\"Bye, {crit}!\" {A.he} called, and ran back up the beach.",
            "{A.Name} waved goodbye and ran to the dry sand.",
        )
    _close(s, A, ["{A.Name} took only {find} home, and left the sea its creatures.",
                  "The sea sparkled in the sun, and {A.name} skipped all the way back."],
           "Look with your eyes, and leave the wild things where they live.")


def plot_sandcastle(s: Story) -> None:
    A = s.kid() if s.chance(0.75) else _critter(s, ["otter", "bear cub", "rabbit", "puppy", "seal pup", "crab"])
    B = s.kid() if s.chance(0.7) else _critter(s, ["gull", "crab", "otter", "puppy"])
    s.ctx.update(A=A, B=B, find=s.pick(BEACH_FINDS))
    _intro(s, A, "{A.Name} loved the beach more than any place in the world.")
    s.add(
        "One bright morning, {A.name} built a sandcastle near the water.",
        "At the beach, {A.name} began to build the biggest sandcastle ever.",
    )
    s.add(
        "It had four towers, a wall and a moat all around it.",
        "{A.He} made towers with {A.his} bucket and decorated them with {find}.",
    )
    s.add(
        "Then a big wave rushed up the sand. Whoosh!",
        "But the tide was coming in. A wave splashed right into the moat.",
    )
    s.add(
        "When the water slid back, the castle was just a lump of wet sand.",
        "The towers melted and fell down.",
    )
    _feel(s, A, False)
    if s.chance(0.5):
        s.add(
            "{B.Name} came over with a shovel. \"Let's build a new one,\" {B.he} said. \"Higher up this time.\"",
            "\"I'll help you,\" said {B.name}, who had watched the whole thing.",
        )
        s.add(
            "Together they built an even bigger castle far from the waves.",
            "They dug and patted and shaped the sand until the sun was low.",
        )
        _close(s, A, ["The new castle stood tall, and the waves could not reach it.",
                      "\"It's better than the first one,\" said {A.name}, and {B.name} agreed."],
               "When things fall down, build again, and build together.")
    else:
        s.add(
            "{A.Name} sat and watched the waves for a while.",
            "{A.Name} looked at the sea. Then {A.he} had an idea.",
        )
        s.add(
            "\"The sea wanted to play too,\" {A.he} decided, and laughed.",
            "{A.He} built a new castle up by the dunes, where the sand was dry.",
        )
        _close(s, A, ["This time, the castle stood until sunset.",
                      "{A.Name} learned to always build above the line of wet sand."],
               "The sea does not wait, so plan ahead.")


def plot_sunflower_race(s: Story) -> None:
    A = s.kid()
    P = s.parent(A)
    crop = s.pick(GARDEN_CROPS)
    s.ctx.update(A=A, P=P, crop=crop)
    s.add(
        "{A.Name} wanted to grow a sunflower taller than any grown-up.",
        "\"I'm going to grow the tallest sunflower in town,\" said {A.name}.",
        "It was the first warm day of spring, and {A.name} had a packet of sunflower seeds.",
    )
    s.add(
        "{P.Name} helped {A.him} plant the seeds by the fence, next to the {crop}.",
        "{A.He} pushed the seeds into the soft soil by the fence.",
    )
    s.add(
        "Every morning, {A.name} watered them with a little green can.",
        "{A.He} gave them water and pulled out the weeds every day.",
    )
    s.add(
        "Soon, green sprouts poked up out of the dirt.",
        "After a week, two tiny leaves popped up.",
    )
    if s.chance(0.5):
        s.add(
            "One night, slugs ate the leaves of two sprouts!",
            "But one morning, {A.name} saw that a rabbit had nibbled the sprouts.",
        )
        s.add(
            "\"Oh no,\" groaned {A.name}. Only one sunflower was left.",
            "{A.Name} almost cried, but one sprout was still standing.",
        )
        s.add(
            "{A.He} put a little fence of sticks around it to keep it safe.",
            "{A.He} guarded that last sprout like a treasure.",
        )
    else:
        s.add(
            "The sunflowers grew faster than the weeds, faster than the {crop}.",
            "All summer, the stalks stretched up toward the sun.",
        )
    s.add(
        "By August, the sunflower was taller than the fence.",
        "By the end of summer, its big yellow face was higher than {A.name}'s head.",
    )
    s.add(
        "{P.Name} measured it with a long stick. \"It's taller than me, too!\" {P.he} laughed.",
        "{A.Name} stood next to it and looked up. \"You did it!\" {A.he} said to the flower.",
    )
    _close(s, A, ["Bees buzzed around it, and birds came to eat the seeds.",
                  "{A.Name} saved some seeds to plant again next spring."],
           "Good things grow with care and patience.")


def plot_caterpillar(s: Story) -> None:
    A = s.kid()
    s.ctx.update(A=A, leaf=s.pick(["milkweed", "nettle", "cabbage", "parsley", "willow"]))
    s.add(
        "{A.Name} found a fat green caterpillar on a {leaf} leaf.",
        "One spring morning, {A.name} saw a striped caterpillar munching a {leaf} leaf.",
    )
    s.add(
        "It was chewing and chewing. Munch, munch, munch.",
        "It ate so much that {A.name} laughed. \"You're always hungry!\"",
    )
    s.add(
        "{A.Name} came to visit it every day after school.",
        "Every day, {A.name} checked on the caterpillar.",
    )
    s.add(
        "Then one day, the caterpillar was gone.",
        "But one morning, {A.name} could not find it anywhere.",
    )
    s.add(
        "Instead, there was a little green case hanging under the leaf.",
        "In its place, a small shell hung from a twig.",
    )
    if s.chance(0.5):
        s.add(
            "\"Is it sick?\" {A.name} asked {A.his} teacher.",
            "{A.Name} ran to ask {A.his} grandma about it.",
        )
        s.add(
            "\"It's a chrysalis,\" came the answer. \"Wait, and you will see.\"",
            "\"Be patient,\" {A.he} {A.was} told. \"Something wonderful is happening inside.\"",
        )
    else:
        s.add(
            "{A.Name} wanted to open it to look inside, but {A.he} didn't.",
            "{A.Name} waited, even though it was hard.",
        )
    s.add(
        "Many days later, the case cracked open.",
        "Two weeks later, the shell began to wiggle.",
    )
    s.add(
        "Out came a butterfly with {c} wings!",
        "A butterfly crawled out and slowly opened its {c} wings.",
        c=s.pick(["orange and black", "bright yellow", "blue", "white and spotted", "golden"]),
    )
    s.add(
        "It rested in the sun, then fluttered up over the garden.",
        "It flapped its wings once, twice, and flew away.",
    )
    _close(s, A, ["\"Goodbye!\" called {A.name}. \"Don't forget me!\"",
                  "{A.Name} smiled. The hungry caterpillar had become something beautiful."],
           "Big changes take time.")


def plot_egg_hunt_farm(s: Story) -> None:
    A = s.kid()
    H = Who(s._fresh(CRITTER_NAMES), "she", "hen", s.pick(["brown", "speckled", "red", "white", "plump"]))
    P = s.parent(A)
    s.ctx.update(A=A, H=H, P=P)
    s.add(
        "{A.Name} lived on a farm with cows, goats and a flock of hens.",
        "Every morning on the farm, {A.name} had one job: collect the eggs.",
        "{A.Name} was staying at the farm for the summer.",
    )
    s.add(
        "{A.He} took a basket to the henhouse and looked in every nest.",
        "{A.He} carried the egg basket across the muddy yard to the coop.",
    )
    s.add(
        "But one nest was always empty. It belonged to {H.a} named {H.name}.",
        "All the hens laid eggs except {H.name}, {H.a}.",
    )
    s.add(
        "\"Where does {H.name} put her eggs?\" {A.name} wondered.",
        "\"Why doesn't {H.name} lay eggs?\" {A.name} asked {P.name}.",
    )
    s.add(
        "So the next morning, {A.he} followed {H.name} quietly.",
        "{A.He} decided to follow {H.name} and find out.",
    )
    s.add(
        "{H.Name} ran past the barn, under the fence and into the tall grass.",
        "The hen slipped behind the haystack and into an old wheelbarrow.",
    )
    if s.chance(0.5):
        s.add(
            "There was a secret nest with eight brown eggs in it!",
            "There, hidden in the straw, was a pile of eggs!",
        )
        s.add(
            "\"You sneaky hen!\" laughed {A.name}.",
            "\"So this is your secret,\" said {A.name}, giggling.",
        )
        _close(s, A, ["That day, {A.name} brought home the fullest basket ever.",
                      "{P.Name} made a big omelet for everyone."], None, 0.9)
    else:
        s.add(
            "{H.Name} was sitting on a nest, and something under her went peep!",
            "Under {H.name}'s wings, tiny yellow chicks were peeping.",
        )
        s.add(
            "\"Baby chicks!\" {A.name} whispered. \"You were keeping them warm.\"",
            "{A.Name} gasped. {H.Name} had been hatching her eggs all along!",
        )
        _close(s, A, ["{A.Name} ran to tell {P.name} the happy news.",
                      "Soon the chicks followed {H.name} all over the farmyard."],
               "Some secrets turn out to be happy surprises.")


def plot_lost_lamb(s: Story) -> None:
    A = s.kid()
    L = Who(s._fresh(CRITTER_NAMES), s.pick(["he", "she"]), s.pick(["lamb", "goat kid", "calf", "piglet"]),
            s.pick(["little", "tiny", "woolly", "wobbly", "young"]))
    D = Who(s._fresh(CRITTER_NAMES), s.pick(["he", "she"]), "sheepdog", s.pick(["old", "black and white", "clever", "shaggy"]))
    s.ctx.update(A=A, L=L, D=D, spot=s.pick(TRAIL_SPOTS))
    s.add(
        "{A.Name} helped on the farm where {A.his} aunt kept sheep.",
        "On a foggy morning, {A.name} went out to count the animals.",
        "Thick fog lay over the fields when {A.name} woke up.",
    )
    s.add(
        "{A.He} counted them twice. One was missing: {L.a} named {L.name}.",
        "\"Where is {L.name}?\" {A.he} asked. The {L.kind} was not in the pen.",
    )
    s.add(
        "The gate was open just a crack.",
        "There was a gap under the fence, just big enough for a small animal.",
    )
    s.add(
        "{A.Name} put on {A.his} boots and whistled for {D.name}, the {D.kind}.",
        "\"Come on, {D.name},\" said {A.name} to the old {D.kind}. \"We have to find {L.name}.\"",
    )
    s.add(
        "They walked across the wet field, calling and calling.",
        "They searched past the barn and along the hedge.",
    )
    if s.chance(0.5):
        s.add(
            "{D.Name} put {D.his} nose to the ground and ran to {spot}.",
            "Suddenly, {D.name} barked and raced toward {spot}.",
        )
        s.add(
            "There was {L.name}, stuck and shivering.",
            "{L.Name} was caught in the brambles by {L.his} coat.",
        )
        s.add(
            "{A.Name} gently pulled {L.him} free.",
            "{A.Name} unhooked the thorns one by one.",
        )
    else:
        s.add(
            "Then {A.name} heard a tiny cry from near {spot}.",
            "Then, through the fog, came a thin little cry.",
        )
        s.add(
            "{A.Name} followed the sound and found {L.name} all alone, too scared to move.",
            "{L.Name} was standing by {spot}, lost in the fog.",
        )
        s.add(
            "{A.He} picked {L.him} up and held {L.him} close.",
            "\"It's all right, I've got you,\" said {A.name}.",
        )
    s.add(
        "They carried {L.name} back to the pen and closed the gate tight.",
        "Back at the farm, {L.name} ran straight to {L.his} mother.",
    )
    _close(s, A, ["{A.Name} gave {D.name} an extra biscuit that night.",
                  "After that, {A.name} checked the gate every single evening."],
           "Every little one matters, even when the flock is big.")


def plot_fallen_nestling(s: Story) -> None:
    A = s.kid() if s.chance(0.7) else _critter(s, ["rabbit", "hedgehog", "mouse", "squirrel", "badger", "fox"])
    bird = s.pick(BIRDS)
    s.ctx.update(A=A, bird=bird, tree=s.pick(TREES))
    _intro(s, A)
    s.add(
        "One windy morning, {A.name} heard a tiny cheep under the {tree} tree.",
        "After a storm, {A.name} found a baby {bird} in the grass.",
    )
    s.add(
        "It had fallen out of its nest. It had only a few fluffy feathers.",
        "The little bird was too young to fly. Its nest was high above.",
    )
    s.add(
        "\"Poor thing,\" said {A.name}. \"Where is your mother?\"",
        "\"Don't be scared,\" {A.name} whispered.",
    )
    s.add(
        "Up in the branches, the mother {bird} was calling and calling.",
        "{A.He} looked up and saw the nest on a branch, and the mother bird hopping nearby.",
    )
    if s.chance(0.5) and A.kind in ("girl", "boy", "kid"):
        s.add(
            "{A.Name} ran to get a grown-up and a ladder.",
            "{A.Name} called {A.his} dad, who brought the long ladder.",
        )
        s.add(
            "Very gently, they put the baby bird back in its nest.",
            "Carefully, the little bird was lifted back up into the nest.",
        )
    else:
        s.add(
            "{A.Name} could not reach the nest, so {A.he} made a new one.",
            "The nest was too high, so {A.name} found a small basket.",
        )
        s.add(
            "{A.He} lined it with soft grass and hung it on a low branch.",
            "{A.He} filled it with moss and set the baby bird inside, up off the ground.",
        )
        s.add(
            "Soon the mother {bird} flew down with a worm.",
            "A minute later, the mother bird came to feed her baby.",
        )
    s.add(
        "The baby {bird} opened its beak wide and chirped.",
        "The mother bird sang a happy song.",
    )
    _close(s, A, ["A few weeks later, a young {bird} flew past {A.name} and chirped hello.",
                  "{A.Name} checked on the nest every day until the baby could fly."],
           "Even small hands can help a small life.")


def plot_migration(s: Story) -> None:
    kind = s.pick(["goose", "duck", "swallow", "swan", "crane"])
    A = Who(s._fresh(CRITTER_NAMES), s.pick(["he", "she"]), kind, s.pick(["young", "little", "gray", "small"]))
    G = Who("Grandmother " + _cap(kind), "she", kind, "old")
    s.ctx.update(A=A, G=G, kind=kind)
    s.add(
        "{A.Name} was {A.a}, born in the spring by a quiet lake.",
        "By the reeds of a northern lake lived {A.a} named {A.name}.",
    )
    s.add(
        "The leaves were turning gold, and the air was getting cold.",
        "Autumn had come. Every morning, there was frost on the reeds.",
    )
    s.add(
        "\"It's time to fly south,\" said {G.name}. \"We leave tomorrow.\"",
        "{G.Name} gathered the flock. \"Tomorrow we fly to the warm lands,\" she said.",
    )
    s.add(
        "\"What if I get tired on the way?\" asked {A.name}, who had never flown so far.",
        "\"But it's so far away,\" said {A.name}. \"Can I really fly that far?\"",
    )
    s.add(
        "The next day, the whole flock rose into the sky in a long V.",
        "At dawn, they flapped up over the lake and turned south.",
    )
    s.add(
        "They flew over forests, rivers, towns and wide brown fields.",
        "Below them, the hills and rivers slid slowly past.",
    )
    if s.chance(0.5):
        s.add(
            "After many hours, {A.name}'s wings began to ache.",
            "On the third day, {A.name} started to fall behind.",
        )
        s.add(
            "\"Fly behind me,\" called {G.name}. \"The wind is easier there.\"",
            "The others slowed down and let {A.name} fly in the middle, where the air was calm.",
        )
        s.add(
            "{A.Name} kept flapping, and the flock kept {A.him} safe.",
            "With the flock around {A.him}, {A.name} felt strong again.",
        )
    else:
        s.add(
            "One evening, a storm blew in, and the flock landed on a pond to rest.",
            "A cold wind pushed them back, so they rested for a night in a farmer's field.",
        )
        s.add(
            "{A.Name} tucked {A.his} head under {A.his} wing and slept.",
            "They ate grain and drank cold water, and in the morning they went on.",
        )
    s.add(
        "At last they saw a warm blue lake with green trees all around it.",
        "At last, the air grew soft and warm, and they landed on a sunny lake.",
    )
    _close(s, A, ["\"You did it,\" said {G.name}. {A.Name} was the proudest {kind} on the lake.",
                  "{A.Name} splashed in the warm water and honked with joy.",
                  "Far from home, {A.name} found that the flock was home."],
           "A long journey is easier when friends fly with you.")


def plot_squirrel_acorns(s: Story) -> None:
    A = Who(s._fresh(CRITTER_NAMES), s.pick(["he", "she"]), s.pick(["squirrel", "chipmunk"]),
            s.pick(["busy", "bushy-tailed", "red", "gray", "forgetful"]))
    B = _critter(s, ["rabbit", "mole", "hedgehog", "mouse", "badger"])
    nut = s.pick(["acorns", "hazelnuts", "chestnuts", "beechnuts"])
    s.ctx.update(A=A, B=B, nut=nut)
    s.add(
        "{A.Name} was {A.a} who lived in a tall oak.",
        "High in an oak tree lived {A.a} called {A.name}.",
    )
    s.add(
        "All fall, {A.name} gathered {nut} and buried them in the ground.",
        "Every autumn day, {A.he} dug little holes and hid {nut} in them.",
    )
    s.add(
        "\"Why do you hide so many?\" asked {B.called}.",
        "{B.Name} the {B.kind} watched. \"You'll never remember them all,\" {B.he} said.",
    )
    s.add(
        "\"I will,\" said {A.name}. \"Every single one.\"",
        "\"Of course I will!\" {A.name} said, and buried another.",
    )
    s.add(
        "Winter came with deep snow.",
        "Then the snow fell, and the whole wood turned white.",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} dug here and there, but {A.he} found only half of {A.his} {nut}.",
            "{A.Name} could not remember where most of the holes were!",
        )
        s.add(
            "{B.Name} laughed, but then {B.he} helped {A.him} dig.",
            "\"I saw where you put some,\" said {B.name}, and showed {A.him}.",
        )
        s.add(
            "They shared what they found and stayed warm together.",
            "There were enough {nut} for both of them.",
        )
    else:
        s.add(
            "{A.Name} found most of {A.his} {nut}, but not all.",
            "{A.He} found many {nut}, but some stayed lost under the snow.",
        )
    s.add(
        "In the spring, little green shoots came up all over the wood.",
        "When spring came, tiny trees sprouted where the lost {nut} were buried.",
    )
    s.add(
        "\"Look,\" said {B.name}. \"Your lost {nut} are growing into trees!\"",
        "{A.Name} stared. \"I planted a forest,\" {A.he} said, \"and I didn't even know it.\"",
    )
    _close(s, A, ["Years later, the young trees were full of nuts for everyone.",
                  "Now {A.name} buries extra {nut} on purpose."],
           "Even what we forget can grow into something good.")


def plot_first_snow(s: Story) -> None:
    A = _critter(s, ["fox cub", "bear cub", "fawn", "rabbit", "puppy", "kitten", "badger cub"])
    M = Who(f"{A.his} mother", "she", "mother")
    s.ctx.update(A=A, M=M)
    s.add(
        "{A.Name} was {A.a} who had been born in the spring.",
        "{A.Name} was {A.a}, and this was {A.his} very first winter.",
    )
    s.add(
        "{A.He} knew green grass, warm rain and red leaves, but {A.he} had never seen snow.",
        "{A.He} had played in summer grass and autumn leaves, but never in snow.",
    )
    s.add(
        "One morning, the air smelled cold and strange.",
        "One gray morning, the sky was low and quiet.",
    )
    s.add(
        "Then something white and soft drifted down and landed on {A.his} nose.",
        "Tiny white flakes began to fall, one by one.",
    )
    s.add(
        "\"What is it?\" asked {A.name}. \"Is the sky falling?\"",
        "\"Mama, the sky is breaking into little pieces!\" cried {A.name}.",
    )
    s.add(
        "\"That's snow,\" said {M.name}, smiling.",
        "{M.Name} laughed. \"It's only snow, little one.\"",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} jumped into it. It was cold and crunchy!",
            "{A.Name} leaped out and rolled in the white powder.",
        )
        s.add(
            "{A.He} made tracks everywhere and tried to catch the flakes with {A.his} tongue.",
            "{A.He} slid down a little hill and landed in a soft pile.",
        )
    else:
        s.add(
            "{A.Name} was not sure. {A.He} put one paw out, then pulled it back.",
            "At first {A.name} stayed by the door and only watched.",
        )
        s.add(
            "But the snow looked so pretty that {A.he} stepped out at last.",
            "Then {A.he} saw {A.his} mother's footprints in the snow and followed them.",
        )
    s.add(
        "When {A.he} came home, {A.his} fur was full of snowflakes.",
        "By evening, {A.he} {A.was} tired and cold and very happy.",
    )
    _close(s, A, ["{A.Name} curled up by {A.his} mother and dreamed of snow.",
                  "\"Will it snow tomorrow too?\" {A.name} asked sleepily."],
           "Every season brings something new to love.")


def plot_rainbow_end(s: Story) -> None:
    A = s.kid()
    B = _critter(s, ["dog", "puppy", "goat", "pony"])
    s.ctx.update(A=A, B=B)
    s.add(
        "All morning it had rained, and {A.name} watched the drops run down the window.",
        "The rain stopped just after lunch, and the sun peeked out.",
        "After a long, drizzly morning, the clouds began to break.",
    )
    s.add(
        "Then {A.name} saw a rainbow over the hills!",
        "A huge rainbow stretched across the sky, and {A.name} ran outside to see it.",
    )
    s.add(
        "\"I'm going to find the end of it,\" {A.name} told {A.his} {B.kind}, {B.name}.",
        "\"They say there's treasure at the end of a rainbow,\" said {A.name} to {A.his} {B.kind}, {B.name}.",
    )
    s.add(
        "They ran across the wet field and splashed through the puddles.",
        "{A.Name} and {B.name} hurried down the muddy lane toward the hills.",
    )
    s.add(
        "But the rainbow seemed to move away as they ran.",
        "The closer they got, the farther away the rainbow seemed.",
    )
    if s.chance(0.5):
        s.add(
            "At the top of the hill, the rainbow began to fade.",
            "Soon the colors grew pale, and the rainbow was gone.",
        )
        s.add(
            "\"We didn't find the treasure,\" sighed {A.name}.",
            "{A.Name} sat down on a rock. \"It's gone,\" {A.he} said.",
        )
        s.add(
            "But then {A.he} looked around. The whole valley was shining in the sun.",
            "Then {A.he} saw the wet grass sparkling like a million jewels.",
        )
    else:
        s.add(
            "They stopped by a little stream to rest.",
            "{B.Name} barked at something shiny in the grass.",
        )
        s.add(
            "In the water, a sunbeam made a tiny rainbow of its own.",
            "There, in a puddle, a tiny rainbow shimmered right at their feet.",
        )
        s.add(
            "\"We found the end!\" laughed {A.name}.",
            "\"Look, {B.name}! The rainbow came to us!\" said {A.name}.",
        )
    _close(s, A, ["They walked home muddy and happy.",
                  "{A.Name} decided that the treasure was the adventure itself."],
           "The best treasure is often the journey.")


def plot_raft_crossing(s: Story) -> None:
    A = _critter(s, ["beaver", "otter", "mouse", "rabbit", "frog", "hedgehog"])
    B = _critter(s, ["mole", "squirrel", "duckling", "vole", "toad", "chipmunk"])
    food = s.pick(WILD_FOODS)
    s.ctx.update(A=A, B=B, food=food)
    s.add(
        "{A.Name} the {A.kind} and {B.name} the {B.kind} were best friends.",
        "Down by the river lived {A.a} named {A.name} and {A.his} friend {B.name}, {B.a}.",
    )
    s.add(
        "On the other side of the river grew the juiciest {food} in the whole valley.",
        "Across the water, they could see bushes full of {food}.",
    )
    s.add(
        "\"How can we get across?\" asked {B.name}.",
        "\"I wish we could get over there,\" sighed {B.name}.",
    )
    s.add(
        "\"Let's build a raft!\" said {A.name}.",
        "{A.Name} thought hard. \"We can make a boat,\" {A.he} said.",
    )
    s.add(
        "They gathered sticks and tied them together with long reeds.",
        "They dragged branches to the bank and tied them with grass.",
    )
    if s.chance(0.5):
        s.add(
            "Halfway across, the current grew strong, and the raft began to spin!",
            "In the middle of the river, one of the reeds snapped.",
        )
        s.add(
            "\"Hold on!\" shouted {A.name}.",
            "\"Paddle hard!\" cried {A.name}, and they paddled with all their might.",
        )
        s.add(
            "They bumped into the far bank, wet but safe.",
            "At last, the raft bumped against a rock on the other side.",
        )
    else:
        s.add(
            "They pushed off with a long stick, and the raft floated gently across.",
            "The river was calm, and they drifted slowly past lily pads and dragonflies.",
        )
    s.add(
        "They ate {food} until their tummies were round.",
        "They filled their baskets with {food} and had a feast.",
    )
    _close(s, A, ["Then they floated home as the sun went down.",
                  "\"Same time tomorrow?\" asked {B.name}. {A.Name} grinned."],
           "Two friends working together can cross any river.")


def plot_fable_frog_voice(s: Story) -> None:
    A = Who(s._fresh(CRITTER_NAMES), s.pick(["he", "she"]), s.pick(["frog", "bullfrog", "toad"]), s.pick(["big", "green", "proud", "loud"]))
    B = _critter(s, ["newt", "snail", "minnow", "water beetle", "turtle"])
    s.ctx.update(A=A, B=B, heron=s.pick(["heron", "stork", "crane"]))
    s.add(
        "In a muddy pond lived {A.a} named {A.name} with the loudest voice for miles.",
        "{A.Name} was {A.a} who thought {A.his} croak was the finest sound in the world.",
    )
    s.add(
        "Every night, {A.he} sat on a lily pad and croaked as loud as {A.he} could.",
        "\"Listen to me!\" {A.he} boomed. \"Ribbit, ribbit, RIBBIT!\"",
    )
    s.add(
        "\"Please be quiet,\" said {B.called}. \"Something hungry might hear you.\"",
        "{B.Name}, {B.a}, swam up. \"Shh,\" {B.he} said. \"The {heron} is near.\"",
    )
    s.add(
        "\"Why should I be quiet?\" said {A.name}. \"Everyone loves my song.\"",
        "{A.Name} only puffed up {A.his} throat and croaked louder.",
    )
    s.add(
        "Then a long gray shadow fell over the pond: the {heron}!",
        "Just then, the {heron} stepped out of the reeds on long thin legs.",
    )
    if s.chance(0.5):
        s.add(
            "{B.Name} cried, \"Dive!\" and {A.name} jumped into the mud just in time.",
            "\"Quick, under the lily pads!\" whispered {B.name}, and {A.name} dove.",
        )
        s.add(
            "The {heron} stabbed at the water, but found nothing and flew away.",
            "The {heron} waited and waited, then flapped off with an empty beak.",
        )
        s.add(
            "\"Thank you,\" said {A.name} softly. \"I will sing more quietly from now on.\"",
            "After that, {A.name} sang only when the pond was safe.",
        )
        _close(s, A, ["And the pond was a little quieter, and a lot safer."],
               "A loud voice is not the same as a wise one.", 0.4)
    else:
        s.add(
            "{A.Name} was so busy croaking that {A.he} did not see it coming.",
            "{A.Name} did not listen, and the {heron}'s beak snapped right next to {A.him}.",
        )
        s.add(
            "{A.He} leaped away just in time, but {A.he} lost {A.his} favorite lily pad.",
            "{A.He} escaped by one hop, shaking from head to toe.",
        )
        s.add(
            "\"I should have listened,\" {A.he} said to {B.name}.",
            "From then on, {A.name} listened before {A.he} sang.",
        )
        _close(s, A, ["{B.Name} only nodded and swam away."],
               "Listen to a friend's warning, even when you like your own song.", 0.4)


def plot_fable_oak_reed(s: Story) -> None:
    tree = s.pick(["oak", "pine", "elm", "cedar"])
    A = Who(f"the {tree}", "it", tree, "")
    A.name, A.Name = f"the {tree}", f"The {tree}"
    B = Who("the reed", "it", "reed", "")
    B.name, B.Name = "the reed", "The reed"
    s.ctx.update(A=A, B=B, tree=tree)
    s.add(
        "By a wide river stood a tall {tree} tree, and at its feet grew a thin green reed.",
        "Long ago, a mighty {tree} and a little reed lived side by side on a riverbank.",
    )
    s.add(
        "\"Look at you,\" said the {tree}. \"You bend every time a breeze blows.\"",
        "The {tree} laughed at the reed. \"You are so weak! Even a bird makes you bow.\"",
    )
    s.add(
        "\"I don't mind bending,\" said the reed quietly.",
        "The reed only swayed and said nothing.",
    )
    s.add(
        "That night, a great storm came roaring down the valley.",
        "One autumn night, the wind howled and the rain lashed the hills.",
    )
    s.add(
        "The {tree} stood stiff and proud. \"I will never bend,\" it said.",
        "The {tree} held its branches wide and fought the wind.",
    )
    s.add(
        "The reed bent low, almost to the water, and let the wind pass over it.",
        "The reed bowed down flat and waited.",
    )
    if s.chance(0.5):
        s.add(
            "With a great crack, the {tree} fell into the river.",
            "Crack! The wind tore the {tree} out of the ground.",
        )
        s.add(
            "In the morning, the reed stood up straight again, safe and green.",
            "When the sun rose, the little reed was standing just as before.",
        )
    else:
        s.add(
            "The {tree} lost its biggest branches, and they fell with a crash.",
            "By morning, the {tree} was bare and broken, but still standing.",
        )
        s.add(
            "The reed rose up again, not hurt at all.",
            "The reed stood up straight and shook off the rain.",
        )
        s.add(
            "\"Maybe bending isn't so bad,\" the {tree} said at last.",
            "\"You were wiser than me,\" the {tree} told the reed.",
        )
    s.add("It is better to bend a little than to break.",
          "Sometimes the strong one is the one who knows how to bend.")


def plot_fable_bee_butterfly(s: Story) -> None:
    A = Who(s._fresh(CRITTER_NAMES), s.pick(["he", "she"]), "butterfly", s.pick(["pretty", "painted", "bright", "proud"]))
    B = Who(s._fresh(CRITTER_NAMES), s.pick(["he", "she"]), "bee", s.pick(["busy", "small", "fuzzy", "striped"]))
    flower = s.pick(["clover", "lavender", "foxgloves", "poppies", "buttercups", "sweet peas"])
    s.ctx.update(A=A, B=B, flower=flower)
    s.add(
        "In a meadow full of {flower}, there lived {A.a} named {A.name}.",
        "{A.Name} was {A.a} with wings like stained glass.",
    )
    s.add(
        "{A.He} spent every day showing off {A.his} wings to the flowers.",
        "All day long {A.he} floated from flower to flower, just to be admired.",
    )
    s.add(
        "Nearby, {B.a} named {B.name} worked from dawn to dusk.",
        "{B.Name} the bee flew back and forth, carrying pollen to the hive.",
    )
    s.add(
        "\"Why are you always working?\" asked {A.name}. \"Nobody looks at you.\"",
        "\"You're so plain and busy,\" said {A.name}. \"Don't you ever want to be pretty?\"",
    )
    s.add(
        "\"I don't need to be looked at,\" buzzed {B.name}. \"I help the flowers grow.\"",
        "\"The flowers need me,\" said {B.name}, and flew off with full legs.",
    )
    if s.chance(0.5):
        s.add(
            "Then came a cold, wet week, and the flowers closed up tight.",
            "One day a heavy rain tore {A.name}'s wing, and {A.he} could not fly.",
        )
        s.add(
            "{A.Name} was cold and hungry and had nowhere to go.",
            "{A.Name} lay in the wet grass, shivering.",
        )
        s.add(
            "{B.Name} found {A.him} and led {A.him} to a dry spot by the hive, and shared some honey.",
            "It was {B.name} who came and helped {A.him} to shelter under a leaf.",
        )
        s.add(
            "\"I was wrong about you,\" said {A.name}. \"You are the kindest creature in the meadow.\"",
            "\"Thank you,\" whispered {A.name}. \"You're more beautiful than I ever was.\"",
        )
    else:
        s.add(
            "Later that summer, {A.name} noticed that the meadow was fuller than ever.",
            "By August, there were twice as many {flower} as before.",
        )
        s.add(
            "\"Who made all these flowers grow?\" {A.he} asked.",
            "\"How did this happen?\" wondered {A.name}.",
        )
        s.add(
            "\"The bees did,\" said an old beetle. \"They carry pollen from flower to flower.\"",
            "A ladybug laughed. \"The busy bees, of course!\"",
        )
        s.add(
            "{A.Name} flew to {B.name} and said, \"Teach me to help too.\"",
            "From then on, {A.name} carried pollen too, as much as {A.he} could.",
        )
    _close(s, A, ["And the meadow bloomed brighter than ever."],
           "What you do matters more than how you look.", 0.4)


def plot_fable_returned_favor(s: Story) -> None:
    A = _critter(s, ["ant", "mouse", "cricket", "beetle", "ladybug"])
    B = _critter(s, ["dove", "pigeon", "robin", "sparrow", "deer"])
    s.ctx.update(A=A, B=B)
    s.add(
        "{A.Name} was {A.a} who went to the stream for a drink.",
        "One hot day, {A.a} named {A.name} climbed down to the stream.",
    )
    s.add(
        "A gust of wind blew {A.him} into the water, and {A.he} {A.was} swept away.",
        "{A.He} slipped on a wet stone and fell into the rushing water.",
    )
    s.add(
        "\"Help!\" cried {A.name}.",
        "\"Someone, please help me!\" squeaked {A.name}.",
    )
    s.add(
        "{B.Name} the {B.kind} saw {A.him} and dropped a leaf into the water.",
        "{B.a} named {B.name} was watching from the bank, and {B.he} quickly pushed a twig into the stream.",
    )
    s.add(
        "{A.Name} climbed onto it and floated safely to the shore.",
        "{A.Name} grabbed on and was carried to the dry bank.",
    )
    s.add(
        "\"Thank you,\" said {A.name}. \"One day I will help you too.\"",
        "\"I won't forget this,\" {A.name} promised.",
    )
    s.add(
        "\"How could someone so small ever help me?\" thought {B.name}.",
        "\"You're very welcome,\" said {B.name}, but {B.he} didn't think much of it.",
    )
    s.add(
        "A few days later, a hunter set a trap near {B.name}'s favorite bush.",
        "Not long after, a hunter caught {B.name} in a net hidden in the grass.",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} saw it and chewed through the knots, one by one, until {B.name} was free.",
            "{A.Name} worked all night, biting the strings until the net fell apart.",
        )
    else:
        s.add(
            "{A.Name} bit the hunter's ankle just as he reached for the net. \"Ow!\" he yelled.",
            "{A.Name} pinched the hunter's foot, and he jumped and dropped the net.",
        )
        s.add("{B.Name} escaped into the trees.", "In that moment, {B.name} got away.")
    s.add(
        "\"You kept your promise,\" said {B.name}.",
        "\"I was wrong,\" said {B.name}. \"Small friends can be the greatest friends.\"",
    )
    s.add("One good turn deserves another.", "No kindness is ever wasted.",
          "A friend of any size can save the day.")


def plot_puddle_worms(s: Story) -> None:
    A = s.kid()
    s.ctx.update(A=A, boots=s.pick(["yellow", "red", "green", "spotty", "froggy", "purple"]))
    s.add(
        "It had rained all night, and the path to school was full of puddles.",
        "{A.Name} pulled on {A.his} {boots} rain boots. It was a perfect puddle day.",
        "The rain had stopped, and the whole street smelled of wet earth.",
    )
    s.add(
        "{A.Name} jumped in every puddle, splash, splosh, splash!",
        "{A.Name} stomped through one puddle, then another, then the biggest one of all.",
    )
    s.add(
        "Then {A.he} saw something wiggling on the sidewalk.",
        "But then {A.name} stopped. There were worms all over the path.",
    )
    s.add(
        "\"Why are the worms out here?\" {A.he} wondered.",
        "\"Worms! What are you doing on the sidewalk?\" asked {A.name}.",
    )
    s.add(
        "The worms had crawled out of the wet ground, but now they were lost on the hard stones.",
        "Some were drying out in the sun, and people were stepping near them.",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} picked them up gently, one by one, and put them back on the soft grass.",
            "{A.He} used a leaf to carry each worm back to the muddy flower bed.",
        )
        s.add(
            "\"There you go,\" {A.he} said. \"Go and make the garden grow.\"",
            "When {A.he} counted, {A.he} had saved eleven worms!",
        )
    else:
        s.add(
            "{A.Name} didn't want to touch them. They were slimy!",
            "\"Yuck,\" said {A.name}. But {A.he} felt sorry for them.",
        )
        s.add(
            "So {A.he} found a stick and gently rolled each worm onto the grass.",
            "{A.He} found a flat leaf and slid the worms onto the wet dirt, one at a time.",
        )
    s.add(
        "{A.Name} was late for school, but {A.he} didn't mind.",
        "{A.His} boots were muddy and {A.his} hands were dirty, but {A.he} {A.was} smiling.",
    )
    _close(s, A, ["When {A.he} told {A.his} teacher, the whole class learned about worms that day.",
                  "That spring, {A.his} garden grew the biggest flowers on the street."],
           "Even a worm deserves a helping hand.")


def plot_windy_hat(s: Story) -> None:
    A = s.kid()
    hat = s.pick(["straw hat", "red woolly hat", "sun hat", "blue cap", "big floppy hat"])
    C = _critter(s, ["goat", "pony", "dog", "donkey"])
    s.ctx.update(A=A, hat=hat, C=C, gust=s.pick(GUSTY))
    s.add(
        "It was a {gust} day, and the trees were swaying.",
        "The wind was whistling over the fields when {A.name} went out to play.",
        "{A.Name} wore {A.his} favorite {hat} to walk to the farm shop.",
    )
    s.add(
        "Whoosh! A big gust grabbed {A.name}'s {hat} and carried it away.",
        "Suddenly, the wind snatched the {hat} right off {A.name}'s head!",
    )
    s.add(
        "\"Come back!\" shouted {A.name}, and ran after it.",
        "\"Stop, hat, stop!\" {A.name} cried, chasing it.",
    )
    s.add(
        "The hat rolled over the grass, bounced off a fence and flew over the hedge.",
        "It tumbled along the lane, spun around a tree and sailed over a wall.",
    )
    s.add(
        "On the other side was a field, and in the field was {C.a} named {C.name}.",
        "{A.Name} climbed the gate and found {C.a} named {C.name} standing in the field.",
    )
    if s.chance(0.5):
        s.add(
            "{C.Name} had the {hat} in {C.his} mouth and was chewing it!",
            "The {C.kind} was just about to eat the {hat}.",
        )
        s.add(
            "\"That's my hat!\" said {A.name}. \"Please give it back.\"",
            "\"No, no! It's not lunch!\" laughed {A.name}.",
        )
        s.add(
            "{A.Name} gave {C.name} a handful of grass instead, and {C.he} dropped the hat.",
            "{A.He} traded an apple for it, and the {C.kind} was happy with the deal.",
        )
    else:
        s.add(
            "The {hat} had landed right on {C.name}'s head!",
            "{C.Name} was wearing the {hat} and looking very pleased.",
        )
        s.add(
            "{A.Name} laughed so hard {A.he} had to sit down.",
            "\"It looks better on you,\" {A.name} giggled.",
        )
        s.add(
            "{A.He} gently lifted it off, and {C.name} nuzzled {A.his} hand.",
            "{A.He} took it back, but {A.he} gave {C.name} a pat on the nose.",
        )
    _close(s, A, ["After that, {A.name} held on to {A.his} hat whenever the wind blew.",
                  "{A.Name} walked home with a chewed hat and a new friend.",
                  "The wind kept blowing, but {A.name} kept {A.his} hat in {A.his} pocket."])


def plot_hilltop_hike(s: Story) -> None:
    A = s.kid()
    P = s.parent(A)
    spot = s.pick(TRAIL_SPOTS)
    s.ctx.update(A=A, P=P, spot=spot, snack=s.pick(CAMP_SNACKS))
    s.add(
        "At breakfast, {A.name} heard the big news: \"Today we're climbing Bald Hill!\"",
        "{A.Name} and {P.name} packed water, sandwiches and {snack} for a long hike.",
        "On a bright autumn morning, {A.name} and {P.name} set out to climb the tallest hill near town.",
    )
    s.add(
        "The trail wound up through the trees, past {spot}.",
        "They walked past {spot} and up a steep, rocky path.",
    )
    s.add(
        "After a while, {A.name}'s legs began to hurt.",
        "The path got steeper and steeper.",
    )
    s.add(
        "\"I'm tired,\" groaned {A.name}. \"Can we go home?\"",
        "\"How much farther?\" {A.name} asked for the tenth time.",
    )
    if s.chance(0.5):
        s.add(
            "\"Let's rest,\" said {P.name}. They sat on a log and drank some water.",
            "{P.Name} sat down on a rock and shared the snacks.",
        )
        s.add(
            "A chipmunk watched them, and a woodpecker drummed on a tree.",
            "While they rested, a deer stepped out of the trees and looked at them.",
        )
        s.add(
            "{A.Name} felt better and started walking again.",
            "After the rest, {A.name}'s legs felt strong again.",
        )
    else:
        s.add(
            "\"Just one more step,\" said {P.name}. \"And then another one.\"",
            "\"Count your steps,\" {P.name} said. \"See if you can get to one hundred.\"",
        )
        s.add(
            "{A.Name} counted every step, and soon the trees grew thinner.",
            "{A.Name} kept going, one step at a time.",
        )
    s.add(
        "At last they reached the top!",
        "Suddenly, there was no more hill to climb. They were at the top!",
    )
    s.add(
        "{A.He} could see the whole valley, the river, the farms and even {A.his} own roof.",
        "Below them, the fields looked like a green and gold quilt.",
    )
    _close(s, A, ["\"It was worth it,\" said {A.name}, out of breath and smiling.",
                  "{A.Name} felt like {A.he} {A.was} on top of the world.",
                  "On the way down, {A.name} ran the whole way."],
           "The view from the top is worth every step.")


def plot_fishing_trip(s: Story) -> None:
    A = s.kid()
    G = Who(f"{A.his} " + s.pick(["grandpa", "grandma"]), "he", "grandpa")
    if G.name.endswith("grandma"):
        G = Who(G.name, "she", "grandma")
    s.ctx.update(A=A, G=G, fish=s.pick(["trout", "perch", "sunfish", "minnow", "little bass"]))
    s.add(
        "Early one morning, {A.name} and {G.name} rowed a little boat onto the lake.",
        "{A.Name} went fishing with {G.name} at the lake, just after sunrise.",
    )
    s.add(
        "Mist was rising off the water, and everything was very still.",
        "The lake was smooth as glass, and a loon was calling far away.",
    )
    s.add(
        "{G.Name} showed {A.him} how to put bait on the hook and cast the line.",
        "{A.Name} threw out the line, and the red float bobbed on the water.",
    )
    s.add(
        "They waited and waited, but nothing happened.",
        "An hour went by, and not one fish bit.",
    )
    s.add(
        "\"Fishing is boring,\" {A.name} whispered.",
        "\"When will a fish come?\" asked {A.name}.",
    )
    s.add(
        "\"Fishing is mostly waiting,\" said {G.name}. \"And looking around.\"",
        "{G.Name} smiled. \"Be patient. Watch the water.\"",
    )
    if s.chance(0.5):
        s.add(
            "Suddenly, the float dipped under the water! {A.Name} pulled and pulled.",
            "Then the line gave a big tug. \"I've got one!\" shouted {A.name}.",
        )
        s.add(
            "It was a shiny {fish}, wiggling in the sun.",
            "Out of the water came a small {fish} with silver scales.",
        )
        s.add(
            "{A.Name} looked at it for a moment. Then {A.he} let it go back into the lake.",
            "\"It's so little,\" said {A.name}. \"Let's let it grow up.\" And they put it back.",
        )
    else:
        s.add(
            "So {A.name} watched, and {A.he} saw a turtle on a log and a dragonfly on the rod.",
            "{A.Name} looked around and saw a heron fishing too, standing on one leg.",
        )
        s.add(
            "They didn't catch any fish, but they saw a family of ducks swim right past the boat.",
            "By lunchtime they had caught nothing, but {A.name} had counted nine kinds of birds.",
        )
    _close(s, A, ["\"Can we come back tomorrow?\" {A.name} asked on the way home.",
                  "It was the quietest, happiest morning {A.name} could remember."],
           "Patience lets you see what you would otherwise miss.")


def plot_thin_ice(s: Story) -> None:
    A = s.kid()
    B = s.kid()
    s.ctx.update(A=A, B=B, season=s.pick(SEASON_TIMES["winter"]))
    adult = s.pick([f"{A.name}'s dad", f"{A.name}'s mom", "the park ranger", f"{B.name}'s big sister"])
    s.add("{season}")
    s.add(
        "{A.Name} and {B.name} walked down to the pond with their skates.",
        "{A.Name} couldn't wait to go sliding on the frozen pond with {B.name}.",
    )
    s.add(
        "Near the edge the ice was thick and white, but in the middle it was dark and thin.",
        "The ice looked solid, but in some places there were cracks and dark patches.",
    )
    s.add(
        "\"Let's go to the middle!\" said {B.name}.",
        "\"Race you to the island!\" shouted {B.name}, stepping onto the ice.",
    )
    s.add(
        "{A.Name} remembered what {A.his} mom had said: never go on the ice without a grown-up.",
        "\"Wait!\" said {A.name}. \"We need to ask a grown-up if it's safe.\"",
    )
    if s.chance(0.5):
        s.add(
            "Just then, there was a loud crack. {B.Name} jumped back to the shore.",
            "With a loud crack, a long line spread across the ice in front of {B.name}.",
        )
        s.add(
            "\"You were right,\" said {B.name}, breathing fast.",
            "{B.Name}'s eyes went wide. \"That was close,\" {B.he} whispered.",
        )
    else:
        s.add(
            "{B.Name} sighed, but {B.he} stepped back off the ice.",
            "{B.Name} didn't want to wait, but {B.he} listened.",
        )
    s.add(
        "They ran to get {adult}, who tested the ice with a long stick.",
        "They went to ask {adult}, who checked the ice near the shore.",
        adult=adult,
    )
    s.add(
        "\"Only skate here, where it's thick,\" {adult} said.",
        "\"This part is safe,\" said {adult}. \"Stay close to the edge.\"",
        adult=adult,
    )
    s.add(
        "So they skated and slid and spun until their cheeks were pink.",
        "They played there all afternoon, falling down and laughing.",
    )
    _close(s, A, ["Then they went home for hot cocoa.",
                  "{B.Name} said {A.name} was the smartest friend in the world."],
           "Being careful is a way of being brave.")


def plot_leaf_pile(s: Story) -> None:
    A = s.kid()
    H = _critter(s, ["hedgehog", "toad", "mouse", "chipmunk"])
    s.ctx.update(A=A, H=H, tree=s.pick(TREES), season=s.pick(SEASON_TIMES["fall"]))
    s.add("{season}")
    s.add(
        "The big {tree} tree in {A.name}'s yard had dropped all its leaves.",
        "Leaves covered {A.name}'s whole yard like a crunchy carpet.",
    )
    s.add(
        "{A.Name} took a rake and made the biggest pile of leaves ever.",
        "{A.He} raked and raked until the pile was as tall as {A.he} {A.was}.",
    )
    s.add(
        "\"Ready, set, go!\" {A.he} shouted, and jumped right in.",
        "{A.He} ran and leaped into the middle. Crunch!",
    )
    s.add(
        "Leaves flew everywhere. Then the pile said, \"Hey!\"",
        "But then something in the pile squeaked.",
    )
    s.add(
        "Out poked the nose of {H.a}.",
        "{H.a} named {H.name} crawled out, looking very sleepy and cross.",
    )
    s.add(
        "\"I was getting ready for my winter nap,\" the {H.kind} grumbled.",
        "\"This was going to be my bed for the winter,\" said {H.name}.",
    )
    if s.chance(0.5):
        s.add(
            "\"I'm sorry!\" said {A.name}. \"I'll make you a new one.\"",
            "{A.Name} felt bad. \"Let me help,\" {A.he} said.",
        )
        s.add(
            "{A.He} raked a cozy pile under the hedge, where nobody would jump.",
            "{A.He} built a little leaf house in the quiet corner behind the shed.",
        )
        s.add(
            "{H.Name} crawled inside and curled up in a ball.",
            "The {H.kind} sniffed it, nodded and burrowed in.",
        )
        _close(s, A, ["\"Good night, {H.name}. See you in spring,\" whispered {A.name}.",
                      "{A.Name} never jumped in a pile again without checking first."],
               "Look before you leap, and share the yard with everyone.")
    else:
        s.add(
            "\"There's room for two,\" said {A.name}, laughing.",
            "{A.Name} sat very still. \"Can I jump just once more, if I go over here?\"",
        )
        s.add(
            "{H.Name} thought about it and then giggled. \"Just once,\" {H.he} said.",
            "So they split the pile into two: one for jumping, one for sleeping.",
        )
        _close(s, A, ["{A.Name} jumped, and {H.name} slept. Everyone was happy.",
                      "And that was how a leaf pile became two friends' favorite place."])


def plot_bear_wakes(s: Story) -> None:
    A = Who(s._fresh(CRITTER_NAMES), s.pick(["he", "she"]), "bear", s.pick(["big", "brown", "sleepy", "hungry", "old"]))
    B = _critter(s, BIRDS[:8])
    C = _critter(s, ["rabbit", "fox", "beaver", "badger"])
    food = s.pick(WILD_FOODS)
    s.ctx.update(A=A, B=B, C=C, food=food, season=s.pick(SEASON_TIMES["spring"]))
    s.add(
        "All winter long, {A.name} the bear slept in a cave under the hill.",
        "{A.Name} was {A.a} who had slept since the first snow.",
    )
    s.add("{season}")
    s.add(
        "{A.Name} opened one eye, then the other. {A.His} tummy growled.",
        "{A.Name} yawned a huge yawn and stretched. \"I'm so hungry,\" {A.he} said.",
    )
    s.add(
        "But the berry bushes were still bare, and the stream was still icy.",
        "{A.He} looked for food, but the woods were still brown and empty.",
    )
    s.add(
        "{B.Name} the {B.kind} landed on a branch. \"You're awake too early!\" {B.he} chirped.",
        "\"Good morning, sleepyhead,\" sang {B.name}, {B.a}.",
    )
    if s.chance(0.5):
        s.add(
            "\"I know a sunny slope where the first shoots are growing,\" said {B.name}.",
            "\"Follow me,\" said {B.name}. \"The snow has melted on the south hill.\"",
        )
        s.add(
            "{A.Name} followed, and there were fresh green plants and old {food} from last year.",
            "On the sunny hill, {A.name} found tender grass and a few forgotten {food}.",
        )
    else:
        s.add(
            "{C.Name} the {C.kind} heard {A.name}'s tummy rumble and came out of {C.his} den.",
            "Then {C.called} came by with a bundle of {food}.",
        )
        s.add(
            "\"Last fall I saved too many,\" said {C.name}. \"You can have some.\"",
            "\"Here,\" said {C.name}. \"I had extra {food} from the autumn.\"",
        )
        s.add(
            "\"Thank you,\" said {A.name}, and ate every last one.",
            "{A.Name} ate slowly, to make them last.",
        )
    s.add(
        "Day by day, the woods grew greener, and soon there was food everywhere.",
        "Soon the buds opened, the fish swam upstream, and {A.name} was never hungry again that year.",
    )
    _close(s, A, ["{A.Name} never forgot the friends who helped {A.him} in the hungry days of early spring.",
                  "That autumn, {A.name} made sure to share {A.his} berries with everyone."],
           "A friend's help feels biggest when times are hard.")


def plot_moon_follows(s: Story) -> None:
    A = s.kid()
    P = s.parent(A)
    s.ctx.update(A=A, P=P)
    s.add(
        "{A.Name} and {P.name} were driving home late from grandma's house.",
        "It was long after dark when {A.name} rode home in the back of the car.",
    )
    s.add(
        "Outside the window, a big round moon was shining over the fields.",
        "A full moon hung over the trees, round and bright as a plate.",
    )
    s.add(
        "The car went past houses, barns and a dark forest, but the moon stayed right there.",
        "They drove and drove, but the moon kept up with them.",
    )
    s.add(
        "\"The moon is following us!\" said {A.name}.",
        "\"Why is the moon chasing our car?\" asked {A.name}.",
    )
    if s.chance(0.5):
        s.add(
            "{P.Name} laughed. \"The moon is very, very far away,\" {P.he} said. \"That's why it seems to follow.\"",
            "\"It only looks that way,\" {P.name} said. \"It's so far away that it never seems to move.\"",
        )
        s.add(
            "{A.Name} thought about that for a while.",
            "\"So far that it can't get closer?\" {A.name} asked. \"Yes,\" said {P.name}.",
        )
        s.add(
            "\"Then it's following everybody at once,\" said {A.name}.",
            "\"Then everyone in the world can see the same moon,\" {A.name} said.",
        )
    else:
        s.add(
            "\"Maybe it wants to make sure we get home safe,\" said {P.name}.",
            "\"Maybe it's lighting the way for us,\" {P.name} said with a smile.",
        )
        s.add(
            "{A.Name} liked that idea very much.",
            "{A.Name} waved at the moon. \"Thank you, moon!\"",
        )
    s.add(
        "When they got home, the moon was shining right over the roof.",
        "In the driveway, {A.name} looked up. There it was, waiting.",
    )
    _close(s, A, ["\"Good night, moon,\" whispered {A.name}, and went inside to bed.",
                  "{A.Name} fell asleep with moonlight on {A.his} pillow."],
           "The moon watches over everyone, near and far.")


def plot_beach_rescue(s: Story) -> None:
    A = s.kid()
    crit = s.pick(["baby seal", "sea turtle", "starfish", "little crab", "seagull chick", "jellyfish"])
    s.ctx.update(A=A, crit=crit, acrit=_article(crit) + " " + crit)
    _intro(s, A, "{A.Name} walked along the beach every evening.",
           "Every summer, {A.name} spent a week by the sea.")
    s.add(
        "One evening, after a storm, {A.he} found {acrit} on the sand, far from the water.",
        "The storm had left seaweed and shells all over the beach, and something else too: {acrit}.",
    )
    s.add(
        "The poor thing could not get back to the sea by itself.",
        "It was stuck, and the sun was drying it out.",
    )
    if s.chance(0.5) and crit not in ("baby seal", "sea turtle"):
        s.add(
            "{A.Name} scooped it up very carefully in {A.his} bucket with some seawater.",
            "{A.Name} filled {A.his} bucket with water and gently slid it inside.",
        )
        s.add(
            "{A.He} waded out to where the waves were calm and let it go.",
            "{A.He} carried it to a deep pool and tipped the bucket.",
        )
        s.add(
            "It drifted away into the blue water.",
            "With a little swish, it was gone.",
        )
    else:
        s.add(
            "{A.Name} knew not to touch it. {A.He} ran for help instead.",
            "\"I need a grown-up,\" {A.name} said, and ran to the lifeguard.",
        )
        s.add(
            "The lifeguard came with a big wet towel and a friend from the sea rescue.",
            "Soon, two helpers came with a stretcher and a bucket of seawater.",
        )
        s.add(
            "They carried the {crit} back to the waves and watched it swim away.",
            "Gently, they helped the {crit} back into the sea.",
        )
        s.add(
            "\"You did exactly the right thing,\" the lifeguard told {A.name}.",
            "\"Well done for getting help,\" one of them said.",
        )
    _close(s, A, ["{A.Name} watched the sunset with a warm feeling inside.",
                  "The sea sparkled, as if it was saying thank you.",
                  "After that, {A.name} always checked the beach after a storm."],
           "A little help at the right time can save a life.")


def plot_scarecrow(s: Story) -> None:
    A = s.kid()
    crow = Who(s._fresh(CRITTER_NAMES), s.pick(["he", "she"]), "crow", s.pick(["black", "clever", "cheeky", "glossy"]))
    crop = s.pick(["corn", "peas", "sunflower seeds", "strawberries", "lettuce", "wheat"])
    s.ctx.update(A=A, crow=crow, crop=crop)
    s.add(
        "Every morning, the crows came to eat the {crop} on {A.name}'s farm.",
        "{A.Name}'s family grew {crop}, but the birds kept eating it.",
    )
    s.add(
        "\"We need a scarecrow,\" said {A.name}.",
        "\"I'll make a scarecrow,\" {A.name} decided.",
    )
    s.add(
        "{A.He} stuffed an old shirt with straw and put a pumpkin on top for a head.",
        "{A.He} used old jeans, a flannel shirt, a bucket of straw and a floppy hat.",
    )
    s.add(
        "{A.He} gave it a big painted smile and stood it in the middle of the field.",
        "{A.He} named it Mister Straw and tied it to a post.",
    )
    if s.chance(0.5):
        s.add(
            "The next day, a crow named {crow.name} landed right on the scarecrow's hat!",
            "But the crows were not scared at all. {crow.Name} sat on its shoulder.",
        )
        s.add(
            "\"Caw! It's just straw,\" laughed {crow.name}.",
            "\"What a nice perch,\" cawed {crow.name}.",
        )
        s.add(
            "{A.Name} sighed. Then {A.he} had a better idea.",
            "{A.Name} thought for a long time.",
        )
        s.add(
            "{A.He} planted a small patch of {crop} just for the birds at the edge of the field.",
            "{A.He} put out a tray of seeds for the crows by the old fence, far from the crops.",
        )
        s.add(
            "After that, the crows ate from their own patch and left the rest alone.",
            "The crows were happy, and so was {A.name}.",
        )
    else:
        s.add(
            "The crows circled and cawed, but they didn't come down.",
            "When the crows saw the scarecrow, they flew away in a fright.",
        )
        s.add(
            "The {crop} grew tall and healthy.",
            "By harvest time, the field was full.",
        )
        s.add(
            "But {A.name} felt a little sorry for the hungry crows, so {A.he} left them some {crop} by the gate.",
            "{A.Name} still saved a little of the harvest for the crows.",
        )
    _close(s, A, ["And Mister Straw kept smiling all summer long.",
                  "There was enough for everyone."],
           "When you share a little, you keep a lot.")


def plot_thunder_storm_animals(s: Story) -> None:
    A = _critter(s, FARM_ANIMALS)
    B = _critter(s, ["mouse", "kitten", "duckling", "chick", "barn owl"])
    s.ctx.update(A=A, B=B, gust=s.pick(GUSTY))
    s.add(
        "{A.Name} was {A.a} who lived in a red barn at the bottom of the hill.",
        "On a farm near the woods lived {A.a} named {A.name}.",
    )
    s.add(
        "One {gust} afternoon, the sky turned dark gray.",
        "In the afternoon, black clouds piled up over the hills.",
    )
    s.add(
        "Thunder boomed, and rain poured down on the farmyard.",
        "Lightning flashed, and the rain came down in sheets.",
    )
    s.add(
        "All the animals hurried into the barn. All except {B.name}, {B.a}.",
        "Everyone ran for the barn, but {B.name} the {B.kind} was missing.",
    )
    s.add(
        "\"Where is {B.name}?\" asked {A.name}.",
        "\"Has anyone seen {B.name}?\" {A.name} called.",
    )
    if s.chance(0.5):
        s.add(
            "{A.Name} looked out into the rain and saw {B.name} hiding under the tractor.",
            "Through the rain, {A.name} spotted a tiny shape by the water trough.",
        )
        s.add(
            "{A.He} walked out into the storm, even though {A.he} {A.was} scared of thunder.",
            "{A.Name} didn't like the thunder, but {A.he} went anyway.",
        )
        s.add(
            "\"Climb on my back,\" {A.he} said, and carried {B.name} to the barn.",
            "{A.He} stood over {B.name} like a roof and walked {B.him} slowly to the barn door.",
        )
    else:
        s.add(
            "Then they heard a small voice from the hayloft. \"I'm up here!\"",
            "Then {B.name} poked {B.his} head out of the hay. \"I was here all along!\"",
        )
        s.add(
            "{B.Name} had been napping and had missed all the fuss.",
            "Everyone laughed with relief.",
        )
    s.add(
        "They all snuggled together in the warm hay while the storm rolled by.",
        "The animals huddled close and listened to the rain on the roof.",
    )
    _close(s, A, ["By morning, the sky was washed clean and blue.",
                  "When the storm was over, a rainbow shone over the farm."],
           "In a storm, we keep each other safe.")


def plot_garden_snail(s: Story) -> None:
    A = s.kid()
    sn = Who(s._fresh(CRITTER_NAMES), s.pick(["he", "she"]), "snail", s.pick(["slow", "tiny", "shiny", "spiral-shelled"]))
    crop = s.pick(GARDEN_CROPS)
    s.ctx.update(A=A, sn=sn, crop=crop)
    s.add(
        "{A.Name} was very proud of {A.his} row of {crop}.",
        "{A.Name}'s little garden had {crop}, mint and a row of marigolds.",
    )
    s.add(
        "But one morning, there were holes in all the leaves!",
        "One day, {A.he} found the leaves chewed and full of holes.",
    )
    s.add(
        "\"Who did this?\" {A.name} cried.",
        "\"Who's been eating my garden?\" asked {A.name}.",
    )
    s.add(
        "{A.He} followed a shiny silver trail across the soil.",
        "A sparkly, slimy trail led across the path.",
    )
    s.add(
        "At the end of it was a snail. {A.Name} decided to call {sn.him} {sn.name}.",
        "Under a leaf sat a snail, chewing slowly. {A.Name} named {sn.him} {sn.name}.",
    )
    if s.chance(0.5):
        s.add(
            "\"You can't eat my garden,\" said {A.name}. \"But I won't hurt you.\"",
            "{A.Name} was cross, but {sn.name} looked so small.",
        )
        s.add(
            "{A.He} carried {sn.name} to the wild corner by the compost heap, where the weeds grew thick.",
            "{A.He} moved the snail to a patch of dandelions at the end of the yard.",
        )
        s.add(
            "\"These are all yours,\" {A.he} said.",
            "\"Eat these instead,\" {A.name} told {sn.him}.",
        )
    else:
        s.add(
            "{A.Name} watched {sn.name} for a long time. {sn.He} moved so slowly!",
            "{A.Name} got down on {A.his} knees to look. The snail's eyes were on stalks!",
        )
        s.add(
            "{A.He} decided to share one leaf with {sn.him}, and put a ring of eggshells around the rest.",
            "{A.He} planted an extra row of lettuce, just for the snail.",
        )
    _close(s, A, ["The {crop} grew, {sn.name} grew, and everyone in the garden was happy.",
                  "Every morning after that, {A.name} said hello to {sn.name}."],
           "A garden is big enough to share.")


# ---------------------------------------------------------------------------

PLOTS: list[Callable[[Story], None]] = [
    plot_fireflies, plot_shooting_star, plot_camp_rain, plot_camp_sound, plot_tide_pool,
    plot_sandcastle, plot_sunflower_race, plot_caterpillar, plot_egg_hunt_farm, plot_lost_lamb,
    plot_fallen_nestling, plot_migration, plot_squirrel_acorns, plot_first_snow, plot_rainbow_end,
    plot_raft_crossing, plot_fable_frog_voice, plot_fable_oak_reed, plot_fable_bee_butterfly,
    plot_fable_returned_favor, plot_puddle_worms, plot_windy_hat, plot_hilltop_hike,
    plot_fishing_trip, plot_thin_ice, plot_leaf_pile, plot_bear_wakes, plot_moon_follows,
    plot_beach_rescue, plot_scarecrow, plot_thunder_storm_animals, plot_garden_snail,
]
