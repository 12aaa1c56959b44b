"""alphad-vswitch-gnmi: the gNMI server of the virtual SONiC switch.

Like SONiC's own gNMI container (sonic-gnmi), it is a separate process that
serves the switch's Redis databases: SONiC-native paths (target = database name,
``COUNTERS/Ethernet*/Queues``, the watermark tables; writes with origin
``sonic-db`` to ``CONFIG_DB``) and OpenConfig qos paths mapped onto them.
Capabilities, Get, Set and Subscribe (ONCE, POLL, STREAM with SAMPLE and
ON_CHANGE), JSON and JSON_IETF encodings, TLS and username/password metadata.
"""

__version__ = "0.1.0"
