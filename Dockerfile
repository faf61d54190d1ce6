# actionstream's gateway as a static binary in an empty image.
# Documented, not built by CI: see docs/operations.md.
#
#   docker build -t actionstream .
#   docker run -p 8080:8080 -e UPSTREAM_KEY=... actionstream \
#     serve --listen 0.0.0.0:8080 --upstream http://vllm:8000/v1 --upstream-key-env UPSTREAM_KEY

FROM rust:1-bookworm AS build
RUN rustup target add x86_64-unknown-linux-musl \
 && apt-get update && apt-get install -y --no-install-recommends musl-tools \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cargo build --release --locked --target x86_64-unknown-linux-musl --features serve --bin actionstream \
 && cp target/x86_64-unknown-linux-musl/release/actionstream /actionstream

FROM scratch
COPY --from=build /actionstream /actionstream
# rustls carries its own roots (webpki-roots), so no CA bundle is needed.
USER 65534:65534
EXPOSE 8080
ENTRYPOINT ["/actionstream"]
CMD ["serve", "--listen", "0.0.0.0:8080", "--upstream", "http://127.0.0.1:8000/v1"]
