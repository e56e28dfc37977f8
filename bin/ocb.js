#!/usr/bin/env node
// The published entry point: runs the compiled CLI (`npm run build` first in a checkout).
import "../dist/cli/ocb.js";
