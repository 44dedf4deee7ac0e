#!/usr/bin/env node
// The CLI ships as TypeScript run through tsx, so a clone works with `npm ci` alone and no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
