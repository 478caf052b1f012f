#!/usr/bin/env -S node --no-node-snapshot
import '../src/cli/main.ts';
