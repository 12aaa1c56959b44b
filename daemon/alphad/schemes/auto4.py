"""A candidate for the default, under design: `auto` that knows the scheduler.

`auto`'s four rules (raise, decay, safety, fallback; :mod:`alphad.schemes.auto`) with
`auto3`'s test for starvation: an idle queue's loss is a burst only when the queues its
scheduler serves first (``priorities[].strict``) sent less than ``idle_util`` of line rate
together. A queue behind busier strict-priority queues is starved, and no buffer gives it
bandwidth. Without strict priority it decides as `auto`. Its parameters are `auto3`'s
(`auto`'s without ``idle_loss_min``).
"""

from __future__ import annotations

from alphad.schemes._base import register
from alphad.schemes.auto import Auto
from alphad.schemes.auto3 import DEFAULTS, Auto3, _factory

__all__ = ["DEFAULTS", "Auto4", "make"]


class Auto4(Auto3):
    """`auto3`'s starvation test on `auto`: every other hook is `auto`'s."""

    name = "auto4"
    _recurring = Auto._recurring
    _backed_off = Auto._backed_off
    _may_raise = Auto._may_raise


make = register("auto4")(_factory("auto4", Auto4))
