"""Every SVG the core draws, one module per figure, and the registry of the figures a chapter places: `FIGURES`.

A chapter places a figure by name (`::: figure draw-rule`); the build looks
the name up in `FIGURES` and draws it (`Figure.draw`, figures/base.py), so a
figure of the recorded run comes from the same run and the same renderer as
the lab beside it. The labs draw their own charts with these modules too
(the draw rule under the sampler, token_charts.py in the token lab). Add a
figure: its module here (a `Figure` subclass) and its instance below.
Standard library only: this package ships to the browser.
"""

from rollout_lab.figures import clipped_objective, draw_rule, estimator_variance, reward_kl_frontier, update_step
from rollout_lab.figures.base import Figure

# In the order the chapters place them.
FIGURES: dict[str, Figure] = {
    figure.name: figure
    for figure in (
        draw_rule.FIGURE,
        clipped_objective.FIGURE,
        update_step.FIGURE,
        estimator_variance.FIGURE,
        reward_kl_frontier.FIGURE,
    )
}
