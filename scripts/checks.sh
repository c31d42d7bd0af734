#!/usr/bin/env bash
# The static checks of `npm test` side by side (one per core: they take a minute each one after another);
# fails when any fails, after all have printed.
set -u
tsc --noEmit -p tsconfig.json & typecheck=$!
eslint . & lint=$!
prettier --check . --log-level warn & format=$!
failed=0
wait "$typecheck" || { echo "typecheck failed" >&2; failed=1; }
wait "$lint" || { echo "lint failed" >&2; failed=1; }
wait "$format" || { echo "format check failed" >&2; failed=1; }
exit "$failed"
