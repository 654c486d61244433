"""The words of a search: word forms, device words and floor words.

Cover classes come from `home-assistant-intents` (every inflection HA's own sentences
accept, per language); the default agent's English domain words from
`gazetteer-matcher`. Neither covers music, lists, vacuums… nor German domain words,
so a short table adds those, and each language's file of understanding/ its own. Word forms: HA pins no stemmer, so words are compared
by a light suffix stem (plural and case endings of English, German, Dutch, French)
and German compounds by their head ("Deckenlampe" is a "Lampe").
"""

from collections.abc import Iterable
from functools import cache, lru_cache
from importlib.resources import files
import logging
import re
import unicodedata

from hassil.parse_expression import parse_sentence
from hassil.sample import sample_expression
from home_assistant_intents import get_intents
import yaml

from homeassistant.core import HomeAssistant

from ..understanding.words import device_words as language_device_words

_LOGGER = logging.getLogger(__name__)
_WORD = re.compile(r"\w+")
# Longest first; a stem keeps at least three letters.
_ENDINGS = ("ies", "en", "er", "es", "e", "n", "s")
# A compound's head must be this long, and what comes before it at least three
# letters, so that "door" does not match "outdoor" nor "lamp" "clamp".
_HEAD = 5
# What a sentence says besides the thing: never a name by itself.
STOP_WORDS = frozenset(
    re.findall(
        r"\S+",
        "the and all any every please can could would you turn switch set make "
        "what how is are was the for with from into onto off "
        "die der das den dem des ein eine einen und alle bitte mach mache schalte "
        "stelle setze ist sind wie was aus ein auf zu mit von vom zum zur im in an "
        "de het een alle zet doe maak les des une tous toutes allume éteins",
    )
)

Kind = tuple[str, str | None]  # domain, device class (None: any)

_OPEN: list[Kind] = [
    ("cover", None),
    ("valve", None),
    ("binary_sensor", "door"),
    ("binary_sensor", "window"),
    ("binary_sensor", "opening"),
    ("binary_sensor", "garage_door"),
]
_MEDIA: list[Kind] = [("media_player", None)]
_TODO: list[Kind] = [("todo", None)]
_VACUUM: list[Kind] = [("vacuum", None)]
_CLIMATE: list[Kind] = [("climate", None)]
_LIGHT: list[Kind] = [("light", None)]
_LOCK: list[Kind] = [("lock", None)]
_SWITCH: list[Kind] = [("switch", None)]
_TEMPERATURE: list[Kind] = [("climate", None), ("sensor", "temperature")]
_HUMIDITY: list[Kind] = [("sensor", "humidity"), ("humidifier", None)]
# Words neither library gives, English and German.
_EXTRA: tuple[tuple[str, list[Kind]], ...] = (
    (
        (
            "music song songs radio speaker tv television stereo player media volume "
            "pause mute unmute play playing playlist podcast track cinema "
            "musik lied radio lautsprecher fernseher fernsehen lautstärke pausiere "
            "pausieren pause stumm spiele abspielen wiedergabe kino heimkino"
        ),
        _MEDIA,
    ),
    (
        (
            "list shopping task todo to-do groceries chore chores homework reminder "
            "liste einkaufsliste einkauf einkaufen aufgabe aufgabenliste hausaufgabe "
            "erinnerung"
        ),
        _TODO,
    ),
    (
        (
            "vacuum robot hoover clean vacuuming roomba staubsauger saugroboter "
            "roboter saugen putzen reinigen staubsaugen"
        ),
        _VACUUM,
    ),
    ("mower mow rasenmäher mähroboter mähen", [("lawn_mower", None)]),
    (
        (
            "thermostat heating heater heat cooling ac aircon thermostat heizung "
            "heizen heizkörper klima klimaanlage"
        ),
        _CLIMATE,
    ),
    ("temperature warm cold temperatur kalt", _TEMPERATURE),
    ("humidity feuchtigkeit luftfeuchtigkeit", _HUMIDITY),
    (
        "light lamp lighting bulb licht lampe leuchte beleuchtung birne",
        _LIGHT,
    ),
    ("fan ventilator lüfter", [("fan", None)]),
    (
        (
            "lock unlock locked unlocked schloss abschließen aufschließen zusperren "
            "aufsperren verriegeln entriegeln"
        ),
        _LOCK,
    ),
    ("plug socket outlet steckdose schalter", _SWITCH),
    ("open close öffne öffnen schließe schließen", _OPEN),
    ("scene szene", [("scene", None)]),
    ("script skript", [("script", None)]),
    ("alarm alarmanlage", [("alarm_control_panel", None)]),
    ("camera kamera", [("camera", None)]),
    ("valve sprinkler irrigation ventil bewässerung", [("valve", None)]),
    ("battery batterie akku", [("sensor", "battery")]),
    ("motion bewegung", [("binary_sensor", "motion")]),
    ("window fenster", [("binary_sensor", "window")]),
    ("door tür", [("binary_sensor", "door"), ("lock", None)]),
)
# Where a word points on a house: above the ground floor, on it, below it.
_FLOORS: tuple[tuple[str, str], ...] = (
    (
        (
            "upstairs oben obergeschoss og oberstock dachgeschoss "
            "dachboden attic loft boven"
        ),
        "up",
    ),
    ("downstairs ground unten erdgeschoss eg parterre beneden", "ground"),
    ("basement cellar keller untergeschoss kelder", "below"),
)
FLOOR_WORDS: dict[str, str] = {
    word: where for text, where in _FLOORS for word in text.split()
}


def fold(word: str) -> str:
    """A word without case and accents ("Außen" → "aussen")."""
    return "".join(
        c
        for c in unicodedata.normalize("NFKD", word.casefold())
        if not unicodedata.combining(c)
    )


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """A word without case, accents and its plural or case ending."""
    folded = fold(word)
    for _ in range(2):
        for end in _ENDINGS:
            if end == "s" and folded.endswith("ss"):
                break  # "glass", "schließ": not a plural
            if folded.endswith(end) and len(folded) - len(end) >= 3:
                folded = folded[: -len(end)] + ("y" if end == "ies" else "")
                break
        else:
            break
    return folded


@lru_cache(maxsize=16384)
def stems(text: str) -> frozenset[str]:
    """The stems of a text's words ("kitchen_light" is two words)."""
    return frozenset(stem(w) for w in _WORD.findall(text.replace("_", " ")))


def words(text: str) -> list[str]:
    """A query's words, in order, lower case."""
    return _WORD.findall(text.casefold().replace("_", " "))


def same_word(query: str, name_stems: Iterable[str]) -> bool:
    """Whether a query stem names one of these words, or the head of a compound."""
    for name in name_stems:
        if name == query or (
            len(name) >= len(query) + 3
            and (
                (len(query) >= _HEAD and name.endswith(query))
                or (len(query) >= 4 and name.startswith(query))
            )
        ):
            return True
    return False


def device_kinds(word_stem: str, language: str) -> frozenset[Kind]:
    """What domains and device classes a word names, compounds by their head."""
    table = _kinds(language.split("-", maxsplit=1)[0].lower())
    if word_stem in table:
        return table[word_stem]
    for start in range(1, len(word_stem) - 3):
        head = table.get(word_stem[start:])
        if head is not None and len(word_stem) - start >= 4:
            return head
    return frozenset()


@cache
def _kinds(language: str) -> dict[str, frozenset[Kind]]:
    """Device words for a language (and English and German, which many mix in)."""
    found: dict[str, set[Kind]] = {}

    def add(phrase: str, kinds: Iterable[Kind]) -> None:
        for word in words(phrase):
            if word not in STOP_WORDS:
                found.setdefault(stem(word), set()).update(kinds)

    for text, kinds in _EXTRA:
        add(text, kinds)
    # The language's own device words (understanding/<language>.json).
    for domain, device_words in language_device_words(language).items():
        for device_word in device_words:
            add(device_word, [(domain, None)])
    for domain, phrases in _gazetteer_domains().items():
        for phrase in phrases:
            add(str(phrase), [(domain, None)])
    for lang in {language, "en", "de"}:
        for phrase, device_class in _cover_classes(lang):
            add(phrase, [("cover", device_class)])
    found.pop("garage", None)  # a garage is a place as often as a door
    found[stem("garage")] = {("cover", "garage"), ("binary_sensor", "garage_door")}
    return {word: frozenset(kinds) for word, kinds in found.items()}


def _gazetteer_domains() -> dict[str, list[str]]:
    """The default agent's English words for domains."""
    try:
        vocabulary = files("gazetteer_matcher").joinpath("data", "vocabulary.yaml")
        with vocabulary.open(encoding="utf-8") as file:
            domains = yaml.safe_load(file).get("domains", {})
    except (ImportError, OSError, yaml.YAMLError, AttributeError) as err:
        _LOGGER.debug("No gazetteer vocabulary: %s", err)
        return {}
    return {str(k): list(v) for k, v in domains.items() if isinstance(v, list)}


def _cover_classes(language: str) -> list[tuple[str, str]]:
    """Every form of HA's cover class words in a language, with its class."""
    try:
        intents = get_intents(language)
    except (OSError, ValueError) as err:
        _LOGGER.debug("No intents for %s: %s", language, err)
        return []
    values = ((intents or {}).get("lists", {}).get("cover_classes") or {}).get(
        "values", []
    )
    forms: list[tuple[str, str]] = []
    for value in values:
        try:
            expression = parse_sentence(str(value["in"])).expression
            samples = set(sample_expression(expression))
        except KeyError, ValueError, TypeError:
            continue
        forms.extend((sample, str(value["out"])) for sample in samples)
    return forms


async def async_load(hass: HomeAssistant, language: str) -> None:
    """Read a language's words off the event loop (package data files), once."""
    language = language.split("-", maxsplit=1)[0].lower()
    if language not in _LOADED:
        await hass.async_add_executor_job(_kinds, language)
        _LOADED.add(language)


_LOADED: set[str] = set()
