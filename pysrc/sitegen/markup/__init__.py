"""Markup every stage reads alike: markdown-it's tokens, heading and term ids, code highlighted with Pygments."""
