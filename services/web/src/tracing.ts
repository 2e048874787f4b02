import { startTracing } from '@pilot/platform/tracing';

// Before anything else is loaded: the instrumentations patch http, express, amqplib, ioredis and mongodb as
// they are required (main.ts imports this module first).
startTracing('web');
