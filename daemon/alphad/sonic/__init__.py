"""SONiC integration: Redis database layout, CONFIG_DB discovery, counter reads,
per-queue profile actuation and the restore journal.

The ``sonic`` backend (:mod:`alphad.backends.sonic`) is assembled from these
modules; the virtual SONiC switch (``alphad-vswitch``) reuses the key and
database functions so both sides speak the same layout.
"""
