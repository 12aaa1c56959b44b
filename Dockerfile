# alphad for SONiC: the control-plane daemon as a SONiC Application Extension,
# plus the virtual SONiC switch (alphad-vswitch) for the docker-compose demo.
#
#   make image        (docker where an engine answers, else podman: container/engine.py)
#   sonic-package-manager install --from-tarball alphad.tar   (on the switch)

# -- build: the Python packages in a venv, libalphad-sai and libsai-vasic -----------------
FROM debian:12-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      cmake ninja-build gcc g++ make pkg-config python3 python3-venv python3-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# the dependencies alone first (a layer that changes only with the pyproject files):
# empty packages carry them in, the real ones replace them below
COPY daemon/pyproject.toml daemon/
COPY vswitch/pyproject.toml vswitch/
RUN mkdir -p daemon/alphad vswitch/alphad_vswitch \
 && python3 -m venv /opt/alphad \
 && /opt/alphad/bin/pip install --no-cache-dir ./daemon ./vswitch
COPY daemon/ daemon/
COPY vswitch/ vswitch/
RUN /opt/alphad/bin/pip install --no-cache-dir --no-deps --force-reinstall ./daemon ./vswitch
COPY sai-shim/ sai-shim/
RUN cmake -S sai-shim -B build/sai-shim -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DALPHAD_BUILD_TESTS=OFF -DALPHAD_BUILD_BENCH=OFF \
 && cmake --build build/sai-shim \
 && mkdir -p /out/lib \
 && cp -P build/sai-shim/libalphad-sai.so* build/sai-shim/libsai-vasic.so* /out/lib/

# -- runtime ------------------------------------------------------------------------------
FROM debian:12-slim
# apt-get clean: a base made with mmdebstrap keeps the downloaded packages
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /opt/alphad /opt/alphad
COPY --from=build /out/lib/ /usr/lib/alphad/
COPY configs/sonic/ /etc/alphad/
ENV PATH=/opt/alphad/bin:$PATH \
    ALPHAD_SAI_LIB_DIR=/usr/lib/alphad \
    PYTHONUNBUFFERED=1
VOLUME ["/var/lib/alphad"]
EXPOSE 9464
# The SONiC Application Extension labels (manifest, YANG module) are added by `make image`
# from sonic/manifest.json and sonic/yang/ (container/engine.py).
LABEL org.opencontainers.image.title="alphad" \
      org.opencontainers.image.description="alphad control-plane daemon and virtual SONiC switch"
STOPSIGNAL SIGTERM
CMD ["alphad", "run", "-c", "/etc/alphad/alphad-sonic.yaml", "--no-view"]
