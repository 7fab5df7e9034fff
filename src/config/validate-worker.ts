/** The worker thread of `validate-aside.ts`: validates the sources it is given and posts the result back. */
import { parentPort, workerData } from 'node:worker_threads';
import { validateSources } from './index.js';
import type { SourceText } from './read.js';
import { lowerThreadPriority } from '../threads.js';

// Validation yields the CPU to the reads (and a local service) running meanwhile; it has the time they take.
lowerThreadPriority();

parentPort!.postMessage(validateSources((workerData as { sources: SourceText[] }).sources));
