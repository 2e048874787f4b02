/** The metric names a PromQL expression selects, read with Prometheus's own grammar (lezer-promql). */

export interface ParsedQuery {
  metrics: string[];
  /** Text of every part the grammar could not read (empty for a valid expression). */
  errors: string[];
}

export type PromQLParser = (expr: string) => ParsedQuery;

/** The grammar is an ES module package (its types have no CommonJS form): import(), not require(). */
export async function loadPromQLParser(): Promise<PromQLParser> {
  const { parser } = await import('@prometheus-io/lezer-promql');
  return (expr) => parseWith(parser, expr);
}

/** What this file uses of lezer's LR parser. */
interface SyntaxParser {
  parse(input: string): {
    iterate(spec: { enter(node: { type: { name: string; isError: boolean }; from: number; to: number; node: { parent: { type: { name: string } } | null } }): void }): void;
  };
}

function parseWith(parser: SyntaxParser, expr: string): ParsedQuery {
  const metrics = new Set<string>();
  const errors: string[] = [];
  parser.parse(expr).iterate({
    enter(node) {
      if (node.type.isError) errors.push(`${node.from}: ${JSON.stringify(expr.slice(node.from, node.to + 20))}`);
      // A selector's metric name is the Identifier directly inside a VectorSelector.
      if (node.type.name === 'Identifier' && node.node.parent?.type.name === 'VectorSelector') metrics.add(expr.slice(node.from, node.to));
    },
  });
  return { metrics: [...metrics], errors };
}

/** Grafana's variables replaced by values Prometheus accepts, so a panel's query parses as PromQL. */
export function withGrafanaVariables(expr: string): string {
  return expr
    .replaceAll('$__rate_interval', '1m')
    .replaceAll('$__interval', '1m')
    .replaceAll('$__range', '1h')
    .replaceAll('$service', '.*');
}
