"""The token world: the toy task generated one token at a time (issue 37).

world.py holds its states, options and logits; rollouts.py samples and
enumerates token-level rollouts with the one-action sampler's generator and
draw rule; update.py takes one policy-gradient step on every state's logits
under a length rule (`rollout_lab.token_update`). Standard library only.
"""
