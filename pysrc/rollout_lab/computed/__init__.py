"""The numbers the prose asks the core for, `{{ name key=value }}`: the registry `VALUES` and `list_values`.

An author never types a toy number by hand, so the prose cannot drift from
the lab. What a value is, and how its parameters are read, is
rollout_lab/values.py (`ValueDefinition`); the values of no one widget are
registered here (the toy world's, world.py, the update's, update.py, and
importance sampling's, importance.py);
each lab widget declares the values about its own record (`Widget.values`),
so a widget added to `WIDGETS` brings its values with it. The build
(sitegen/kinds/computed.py) reads the `{{ … }}` syntax and looks every name
up in `list_values()`; it names none.

This registry lives apart from values.py because it imports the widgets
(their values, and the sampler's group the update's values are about),
while the widgets import values.py. Standard library only.
"""

from rollout_lab.computed import importance, update, world
from rollout_lab.values import ValueDefinition
from rollout_lab.widgets import WIDGETS

# The update's values, importance sampling's, then the toy world's table. Add a value: its definition in the module of its concern.
VALUES: dict[str, ValueDefinition] = {**update.VALUES, **importance.VALUES, **world.VALUES}


def list_values() -> dict[str, ValueDefinition]:
    """Return every computed value by name: the registry's and each registered widget's."""
    return {**VALUES, **{name: value for widget in WIDGETS.values() for name, value in widget.values.items()}}
