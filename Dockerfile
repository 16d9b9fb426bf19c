# wecodex: a static Go binary beside the pinned Codex, run as a non-root user.
# Build with `make image` (docker or podman).

ARG GO_VERSION=1.26
ARG NODE_VERSION=22

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# CGO off: static binaries that run on any base image. Both get one random
# build id, so that `wecodex codex-acp` hands its sessions to the lean
# wecodex-codex-acp beside it (package codexacp).
RUN id=$(od -An -N8 -tx8 /dev/urandom | tr -d ' \n') \
 && flags="-s -w -X github.com/wecodex/wecodex/cli.Version=${VERSION} -X github.com/wecodex/wecodex/cli.BuildID=$id" \
 && CGO_ENABLED=0 go build -trimpath -ldflags "$flags" -o /out/wecodex ./cmd/wecodex \
 && CGO_ENABLED=0 go build -trimpath -ldflags "$flags" -o /out/wecodex-codex-acp ./cmd/wecodex-codex-acp

FROM node:${NODE_VERSION}-bookworm-slim AS codex
# Keep in step with CODEX_VERSION in the Makefile: the version the tests ran.
ARG CODEX_VERSION=0.171.0
RUN npm install --global --no-audit --no-fund @openai/codex@${CODEX_VERSION}

FROM node:${NODE_VERSION}-bookworm-slim
# git: Codex reads and writes repositories; bubblewrap: Codex's Linux
# sandbox (agent.codex.sandbox: workspace-write); ca-certificates: HTTPS to
# the model provider and WeCom.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git bubblewrap tini \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 10001 --create-home --home-dir /home/wecodex wecodex \
 && mkdir -p /var/lib/wecodex/workspaces /var/lib/wecodex/codex-home \
 && chown -R wecodex:wecodex /var/lib/wecodex
COPY --from=codex /usr/local/lib/node_modules/@openai/codex /usr/local/lib/node_modules/@openai/codex
RUN ln -s /usr/local/lib/node_modules/@openai/codex/bin/codex.js /usr/local/bin/codex
COPY --from=build /out/wecodex /out/wecodex-codex-acp /usr/local/bin/
USER wecodex
ENV WECODEX_AGENT_WORKSPACE_ROOT=/var/lib/wecodex/workspaces \
    WECODEX_AGENT_CODEX_HOME=/var/lib/wecodex/codex-home
VOLUME ["/var/lib/wecodex"]
EXPOSE 8080
# tini reaps the processes Codex runs and forwards SIGTERM, so a stop drains.
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/wecodex"]
CMD ["serve", "--config", "/etc/wecodex/wecodex.yaml"]
