import './tracing';
import { runService } from '@pilot/http-kit';
import { loadConfig } from './config';
import { start } from './start';

void runService('tracking', loadConfig, start);
