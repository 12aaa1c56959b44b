"""SAI for alphad: the ctypes binding of libalphad-sai (:mod:`alphad.sai.shim`) and of
the virtual ASIC's extension symbols (:mod:`alphad.sai.vasic`).

The ``sai`` and ``vasic`` backends (:mod:`alphad.backends.sai`) are built on them; the
virtual SONiC switch (``alphad-vswitch``) drives its virtual ASIC through the same
binding.
"""
