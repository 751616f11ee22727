"""Learning from many groups on the one-action world: what the prose and the training lab show beyond one step.

estimator.py enumerates every ordered group exactly to compare the signal
rules as estimators of the policy gradient; training.py runs the training
lab's rounds of collect, score and clipped-surrogate steps. One step's
arithmetic (a logit move, a ratio, a KL) is rollout_lab/update.py, which the
prose cites by that name. Standard library only.
"""
