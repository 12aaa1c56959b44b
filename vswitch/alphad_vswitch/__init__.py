"""alphad-vswitch: a virtual SONiC switch for demos and tests.

A real ``redis-server`` holds SONiC's databases (APPL 0, COUNTERS 2, CONFIG 4,
STATE 6). The switch loads a SONiC ``config_db.json``, runs alphad's virtual
ASIC (libsai-vasic through libalphad-sai), publishes COUNTERS_DB and the
watermark tables at the flex counter poll intervals, and applies CONFIG_DB
``BUFFER_PROFILE``/``BUFFER_QUEUE`` changes to the ASIC the way buffermgrd and
orchagent do.
"""

__version__ = "0.1.0"
