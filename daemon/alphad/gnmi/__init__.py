"""gNMI for alphad: path and value helpers, channels with TLS and credentials, the
telemetry stream with stall detection and reconnection, and the SONiC/OpenConfig
path mappings shared by the ``gnmi`` backend and the virtual switch's gNMI server.

The protobuf messages and gRPC stubs are the ones pygnmi ships
(``pygnmi.spec.v080``), generated from openconfig/gnmi's ``gnmi.proto``.
"""
