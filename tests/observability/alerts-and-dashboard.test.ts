/**
 * deploy/observability: every alert expression and every dashboard query is valid PromQL, and every
 * metric it names is exposed by a running service (the whole system on real RabbitMQ, Redis and FerretDB,
 * after an ad request, its confirmation and its click); the PrometheusRule of the production overlay holds
 * the same rules as the plain file; every alert has its runbook line in docs/operations.md.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { scrapeMetrics, waitFor, type ScrapedMetrics } from '@pilot/testkit';
import { expect } from 'chai';
import yaml from 'js-yaml';
import { openLink, signedIn } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher } from '../e2e/support/scenario';
import { ADMIN_ID, startSystem, type System } from '../e2e/support/system';
import { loadPromQLParser, withGrafanaVariables, type PromQLParser } from './promql';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface Rule {
  alert: string;
  expr: string;
  annotations?: Record<string, string>;
}
interface RuleGroups {
  groups: { name: string; rules: Rule[] }[];
}
interface Panel {
  title: string;
  targets?: { expr: string }[];
}

const ruleFile = yaml.load(read('deploy/observability/alerts.rules.yaml')) as RuleGroups;
const prometheusRule = yaml.load(read('deploy/k8s/overlays/production/prometheus-rule.yaml')) as { kind: string; spec: RuleGroups };
const rules = ruleFile.groups.flatMap((group) => group.rules);
const dashboard = JSON.parse(read('deploy/observability/grafana/pilot-overview.json')) as {
  panels: Panel[];
  templating: { list: { name: string; definition?: string }[] };
};
const panelQueries = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ where: panel.title, expr: withGrafanaVariables(target.expr) })));
const alertQueries = rules.map((rule) => ({ where: rule.alert, expr: rule.expr }));

describe('deploy/observability: alert rules and the dashboard', function () {
  let parsePromQL: PromQLParser;
  before(async () => {
    parsePromQL = await loadPromQLParser();
  });

  it('ships the same rules in the PrometheusRule of the production overlay as in the plain rules file', function () {
    expect(prometheusRule.kind).to.equal('PrometheusRule');
    expect(prometheusRule.spec).to.deep.equal(ruleFile);
  });

  it('alerts on the ad path (errors, p99), caches, outbox (backlog and parked events), dead letters, readiness, counting lag and the notification backlog', function () {
    const named = rules.map((rule) => rule.expr).join('\n');
    for (const metric of ['pilot_ad_answers_total', 'http_request_duration_seconds_bucket', 'pilot_campaign_cache_', 'pilot_outbox_pending_entries', 'pilot_outbox_events_parked_total', 'pilot_bus_dead_letter_messages', 'pilot_readiness_changes_total', 'pilot_counting_lag_seconds', 'pilot_notification_backlog_messages']) {
      expect(named, metric).to.include(metric);
    }
  });

  it('parses every alert expression and dashboard query as PromQL', function () {
    for (const { where, expr } of [...alertQueries, ...panelQueries]) {
      const parsed = parsePromQL(expr);
      expect(parsed.errors, `${where}: ${expr}`).to.deep.equal([]);
      expect(parsed.metrics, `${where} names a metric`).to.not.be.empty;
    }
  });

  it('has a runbook line in docs/operations.md for every alert', function () {
    const operations = read('docs/operations.md');
    for (const rule of rules) {
      expect(operations, rule.alert).to.include(`\`${rule.alert}\``);
      expect(rule.annotations?.runbook, rule.alert).to.equal('docs/operations.md#alerts');
    }
  });

  describe('against the running system after an ad request, its confirmation and its click', function () {
    this.timeout(120_000);
    let system: System;
    let scrapes: { service: string; metrics: ScrapedMetrics }[];

    before(async function () {
      system = await startSystem();
      const admin = await signedIn(system, ADMIN_ID);
      const advertiser = await signedIn(system, '7101');
      const publisherOwner = await signedIn(system, '7102');
      await activeCampaign(advertiser, admin);
      const { server } = await approvedPublisher(system, publisherOwner, admin);
      // The activation reaching allocation's cache.
      const ad = await waitFor(async () => {
        const answer = await server.ad('en');
        return answer.status === 200 ? answer : null;
      }, { timeoutMs: 5000, intervalMs: 100, message: 'an ad in en' });
      expect(ad.status, ad.text).to.equal(200);
      const body = ad.body as { delivery_token: string; click_url: string };
      expect((await server.confirm(body.delivery_token)).status).to.equal(200);
      expect((await openLink(body.click_url)).status).to.equal(302);

      scrapes = [{ service: 'gateway', metrics: await scrapeMetrics(system.operatorUrl) }];
      for (const replica of system.replicas) {
        if (replica.running) scrapes.push({ service: replica.service, metrics: await scrapeMetrics(replica.running.url) });
      }
    });

    after(async () => {
      await system?.stop();
    });

    it('serves /metrics on every service, the gateway on its operator port', function () {
      expect(scrapes.map((scrape) => scrape.service).sort()).to.deep.equal(['allocation', 'campaign', 'gateway', 'notification', 'placement', 'publisher-identity', 'tracking', 'web']);
      for (const { service, metrics } of scrapes) expect(metrics.value('process_cpu_seconds_total', { service }), service).to.be.above(0);
    });

    it('moved the funnel: one filled ad answer, one first confirmation, one first click', function () {
      const total = (name: string, labels: Record<string, string>) => scrapes.reduce((sum, { metrics }) => sum + metrics.value(name, labels), 0);
      expect(total('pilot_ad_answers_total', { outcome: 'filled' })).to.equal(1);
      expect(total('pilot_confirmations_total', { outcome: 'first' })).to.equal(1);
      expect(total('pilot_clicks_total', { outcome: 'first' })).to.equal(1);
    });

    it('exposes every metric an alert or a dashboard query names', function () {
      const missing: string[] = [];
      for (const { where, expr } of [...alertQueries, ...panelQueries]) {
        for (const metric of parsePromQL(expr).metrics) {
          if (!scrapes.some(({ metrics }) => metrics.exposes(metric))) missing.push(`${where}: ${metric}`);
        }
      }
      for (const variable of dashboard.templating.list) {
        const metric = /label_values\((\w+)/.exec(variable.definition ?? '')?.[1];
        if (metric && !scrapes.some(({ metrics }) => metrics.exposes(metric))) missing.push(`variable ${variable.name}: ${metric}`);
      }
      expect(missing).to.deep.equal([]);
    });
  });
});
