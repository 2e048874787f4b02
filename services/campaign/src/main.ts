import './tracing';
import { runService } from '@pilot/platform';
import { loadConfig } from './config';
import { start } from './start';

void runService('campaign', loadConfig, start);
