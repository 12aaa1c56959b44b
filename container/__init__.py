"""The alphad container image: how it is built (engine.py) and run against the virtual
SONiC switch (harness.py); its tests are under tests/."""
