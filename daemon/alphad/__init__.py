"""alphad: adaptive buffer management for commodity Dynamic-Threshold switches."""

__version__ = "0.1.0"
