#!/usr/bin/env node
// The CLI is written in TypeScript; tsx compiles it on the fly so `npx watchcat` needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../services/cli/watchcat.ts');
