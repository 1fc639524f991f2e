# Two stages: bundle and compile both programs with Deno (`deno task compile`: scripts/bundle.ts,
# then `deno compile` of each bundle), then run them on a slim image as a non-root user.
FROM denoland/deno:2.9.6 AS build
WORKDIR /src
COPY deno.json deno.lock ./
RUN deno install --frozen
COPY . .
# The version both binaries report (`--version`, /health, the build-info metric); unset: 0.0.0-dev.
ARG BUILD_VERSION=""
RUN BUILD_VERSION="$BUILD_VERSION" deno task compile

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home-dir /data app && mkdir -p /data && chown app /data
COPY --from=build /src/bin/service /src/bin/runner /usr/local/bin/
USER app
WORKDIR /data
ENV DATA_DIR=/data PORT=4000 NODE_ENV=production
EXPOSE 4000
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s CMD ["/usr/local/bin/service", "healthcheck"]
# The agent runner: `docker run --entrypoint /usr/local/bin/runner ...`
ENTRYPOINT ["/usr/local/bin/service"]
CMD ["serve"]
