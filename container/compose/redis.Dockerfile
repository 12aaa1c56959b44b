# SONiC's database as the compose demo runs it: Debian's redis-server, for machines
# where the upstream redis image cannot be pulled (docker-compose.local.yml).
FROM debian:12-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /data
CMD ["redis-server"]
