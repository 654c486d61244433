"""The acceptance table: commands by every route, checked by what is heard and done."""
