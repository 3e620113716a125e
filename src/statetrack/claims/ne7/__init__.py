"""Claim ne7: its declaration (``claim``, with its title and paper source) and its page's readings (``page``)."""
