module standup.invalid/testbed/flux-source

go 1.26.0

replace github.com/opencontainers/go-digest => github.com/opencontainers/go-digest v1.0.1-0.20220411205349-bde1400a84be

require github.com/fluxcd/source-controller v1.9.6

tool github.com/fluxcd/source-controller
