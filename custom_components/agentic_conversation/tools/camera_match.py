"""Which exposed camera a model's words name: by its name or its area, or none.

Every word that may name something must be the camera's (its name, an alias, its
area): "garage camera" is no camera in a home whose only camera is at the front door.
Words for a camera or a picture itself ("camera", "cam", "Kamera", "picture") name
none on their own, in any of our languages: they are set aside. A hidden camera is
not among the exposed ones, so its name is refused like any missing one.
"""

from dataclasses import dataclass

from homeassistant.core import valid_entity_id

from .entities import EntityInfo
from .search_words import STOP_WORDS, same_word, stem, stems, words

# Words for a camera, its picture or its view, in our 16 languages (with the common
# case forms stemming does not reach): never a camera's name by themselves.
_GENERIC_TEXT = (
    # en
    "camera cameras cam cams webcam picture pictures image images photo photos "
    "snapshot snapshots video videos view views feed feeds stream livestream live "
    "footage "
    # de
    "kamera kameras bild bilder foto fotos aufnahme aufnahmen schnappschuss ansicht "
    "videokamera livebild "
    # nl
    "beeld beelden opname opnames "
    # fr
    "caméra caméras vidéo vidéos flux aperçu "
    # es, pt, ca
    "cámara cámaras camara camaras imagen imágenes imagenes vídeo "
    "câmera câmeras câmara câmaras imagem imagens "
    "càmera càmeres imatge imatges "
    # it
    "telecamera telecamere videocamera videocamere immagine immagini "
    # pl, cs
    "kamerka kamery kamerę kamerze kamerą obraz obrazu zdjęcie zdjęcia podgląd "
    "kameru kameře kamerou obrázek fotka fotku záběr záznam "
    # sv, da, nb, fi
    "kameran kamerabild bilden bildet billede billedet bilde kuva kuvaa kameraa "
    "kamerasta "
    # ru, uk
    "камера камеры камеру камере камерой камер изображение картинка картинку фото "
    "видео снимок трансляция зображення відео знімок"
)
GENERIC = frozenset(stem(word) for word in words(_GENERIC_TEXT))
"""Stems of the words that name no camera by themselves."""
# What joins a name's words in our languages ("the camera of the garden", "la cámara
# del jardín"): not a name either.
_JOINING = frozenset(
    words(
        "the of at on in by near from del della delle dello degli dei nel nella sul "
        "sulla per por para con dos das uma una uno les aux sur dans près het bij "
        "voor ved fra til med och vid hos för på det den der die das dem des von vom "
        "zum zur beim"
    )
)
_HEAD = 5  # a generic word ending a compound ("Hofkamera") is this long at least


@dataclass(frozen=True, slots=True)
class Meant:
    """The exposed cameras the words may mean; `generic`: they named none at all."""

    cameras: list[EntityInfo]
    generic: bool = False


def _stems(text: str) -> list[str]:
    """The stems of a text's words, joining words and stop words left out."""
    return [
        stem(word)
        for word in words(text)
        if word not in _JOINING and word not in STOP_WORDS
    ]


def _without_generic(word_stem: str) -> str | None:
    """A name word: None for a generic one; a compound's generic head cut off."""
    if word_stem in GENERIC:
        return None
    for head in GENERIC:
        if (
            len(head) >= _HEAD
            and word_stem.endswith(head)
            and len(word_stem) - len(head) >= 3
        ):
            return stem(word_stem[: -len(head)])
    return word_stem if len(word_stem) >= 3 or word_stem.isdigit() else None


def _named_by(camera: EntityInfo, wanted: list[str]) -> bool:
    """Whether each word is the camera's: in its name, an alias, or its area."""
    own: set[str] = set()
    for text in (camera.name, *camera.aliases, camera.area or "", *camera.area_aliases):
        own |= stems(text.casefold())
    return all(same_word(word, own) for word in wanted)


def cameras_meant(cameras: list[EntityInfo], wanted: str) -> Meant:
    """The exposed cameras `wanted` names (several: the caller asks which).

    No words at all: every exposed camera (the only one is meant). A name or alias
    said whole ("the front door camera"), or an entity id, is that camera.
    """
    if not wanted.strip():
        return Meant(cameras)
    if valid_entity_id(wanted.lower()):
        return Meant([c for c in cameras if c.entity_id == wanted.lower()])
    said = _stems(wanted)
    whole = [
        camera
        for camera in cameras
        if any(
            sorted(set(said)) == sorted(set(_stems(name)))
            for name in (camera.name, *camera.aliases)
        )
    ]
    if whole:
        return Meant(whole)
    name_words = [w for w in map(_without_generic, said) if w is not None]
    if not name_words:
        return Meant([], generic=True)
    return Meant([camera for camera in cameras if _named_by(camera, name_words)])
