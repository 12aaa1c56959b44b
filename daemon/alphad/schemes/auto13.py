"""A candidate for the default: `auto9` that knows the scheduler.

`auto9`'s rules (raise on idle queues only, decay, safety, fallback;
:mod:`alphad.schemes.auto`, :mod:`alphad.schemes.auto9`) with `auto4`'s test of a burst
(:mod:`alphad.schemes.auto4`): an idle queue's loss is a burst only when the queues its
scheduler serves first (``priorities[].strict``) sent less than ``idle_util`` of line rate
together. A queue starved behind busier strict-priority queues loses for want of bandwidth,
and a raise lets it hold buffer it cannot drain. Without strict priority it decides as
`auto9`. Same parameters as `auto9`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes.auto import POSITIVE
from alphad.schemes.auto4 import Auto4
from alphad.schemes.auto9 import DEFAULTS, Auto9


class Auto13(Auto9, Auto4):
    """`auto9` whose burst test leaves out the queues starved by strict priority."""

    name = "auto13"


@register("auto13")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto13:
    return Auto13(ctx, numeric_params("auto13", params, DEFAULTS, positive=POSITIVE))
