# Prometheus from Debian's package, laid out as the upstream prom/prometheus image
# (entrypoint, data in /prometheus), for machines where that image cannot be pulled
# (docker-compose.local.yml).
FROM debian:12-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends prometheus \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /prometheus
WORKDIR /prometheus
EXPOSE 9090
ENTRYPOINT ["/usr/bin/prometheus", "--storage.tsdb.path=/prometheus"]
CMD ["--config.file=/etc/prometheus/prometheus.yml"]
