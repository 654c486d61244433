"""Our own understanding of a command Home Assistant's recognizer did not place.

Kept free of imports at package level: tools/search_words.py reads the device words
of words.py, and stage.py uses the search.
"""
