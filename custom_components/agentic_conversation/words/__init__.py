"""What the user hears, in their language: `effects.py` tells what the house did."""
