/**
 * B5 remedy: the cost of the PostgreSQL step of examples/webhook-each-event-once-postgres.json per delivery, with
 * 1,000 ids in its table and with 30 days' worth at 10 events a second (25,920,000 rows, filled with generate_series
 * in PostgreSQL, not through n8n). The example's own table and statement, run by pgbench (one client, prepared
 * statements): a new event id (the insert goes through and the event is returned) and a copy (no row).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { run } from '../../scripts/n8n-host';
import { startPostgres } from '../../scripts/n8n-host/services';
import type { Log } from '../lib/n8n';

export const THIRTY_DAYS_AT_10_PER_SECOND = 30 * 86_400 * 10;

const TABLE = `CREATE TABLE IF NOT EXISTS recruiting_analysis_event_once (
  event_id text PRIMARY KEY,
  seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS recruiting_analysis_event_once_seen_at ON recruiting_analysis_event_once (seen_at);`;

/** The example's statement; `$1` the event id, `$2` the trigger's output (a typical event envelope). */
const statement = (id: string) => `WITH first_delivery AS (
  INSERT INTO recruiting_analysis_event_once (event_id) VALUES (${id})
  ON CONFLICT (event_id) DO NOTHING
  RETURNING event_id
)
SELECT '{"id":"evt","type":"report.completed","schemaVersion":1,"data":{"reportId":"rpt_1"}}'::jsonb AS event FROM first_delivery;`;

/** Rows `from`..`to` as ids `evt_<md5(i)>` (36 characters, like the API's), seen over the last 30 days. */
const fill = (from: number, to: number) =>
	`INSERT INTO recruiting_analysis_event_once (event_id, seen_at)
SELECT 'evt_' || md5(i::text), now() - ((${to} - i) * interval '100 milliseconds') FROM generate_series(${from}, ${to}) AS i;`;

export interface B5PgRun {
	rows: number;
	/** A new event id: inserted, the event returned. */
	newMs: number;
	/** A copy of a stored id: nothing inserted, no row. */
	copyMs: number;
	transactions: number;
}

export interface B5PgResults {
	postgres: string;
	serverSettings: string;
	runs: B5PgRun[];
	fillSeconds: number;
	/** Table with its two indexes, after the fill. */
	totalMb: number;
}

export async function runB5Pg(o: {
	log: Log;
	outDir: string;
	rows: number;
	transactions: number;
}): Promise<B5PgResults> {
	const pg = await startPostgres({ log: o.log, database: 'bench' });
	const bin = (name: string) => join(pg.binDir, name);
	const conn = ['-h', '127.0.0.1', '-p', String(pg.port), '-U', pg.user];
	const sql = async (text: string): Promise<string> =>
		(
			await run(
				bin('psql'),
				[...conn, '-d', pg.database, '-v', 'ON_ERROR_STOP=1', '-Atq', '-c', text],
				{
					timeoutMs: 3_600_000,
				},
			)
		).stdout.trim();
	const newScript = join(o.outDir, 'b5pg-new.sql');
	const copyScript = join(o.outDir, 'b5pg-copy.sql');
	writeFileSync(
		newScript,
		`\\set n random(1, 2000000000)\n${statement(`'evt_new_' || :client_id || '_' || :n`)}\n`,
	);
	writeFileSync(copyScript, `\\set k random(1, :rows)\n${statement(`'evt_' || md5(:k::text)`)}\n`);
	const bench = async (script: string, rows: number): Promise<number> => {
		const out = await run(
			bin('pgbench'),
			[
				...conn,
				'-n',
				'-M',
				'prepared',
				'-c',
				'1',
				'-t',
				String(o.transactions),
				'-D',
				`rows=${rows}`,
				'-f',
				script,
				pg.database,
			],
			{ timeoutMs: 600_000 },
		);
		const m = /latency average = ([\d.]+) ms/.exec(out.stdout);
		if (!m) throw new Error(`pgbench printed no latency:\n${out.stdout}\n${out.stderr}`);
		return Number(m[1]);
	};
	try {
		const postgres = await sql('SHOW server_version');
		const serverSettings = (
			await sql(
				"SELECT string_agg(name || '=' || current_setting(name), ', ' ORDER BY name) FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'shared_buffers', 'full_page_writes')",
			)
		).replace(/\n/g, ' ');
		await sql(TABLE);
		await sql(fill(1, 1000));
		const runs: B5PgRun[] = [];
		/** `stored`: the `evt_<md5(i)>` ids 1..stored, the copies' ids; `rows`: what the table holds. */
		const measure = async (stored: number, rows: number) => {
			await sql('VACUUM ANALYZE recruiting_analysis_event_once');
			// Each twice, alternating: the first of a kind warms the cache for the second.
			const copies = [await bench(copyScript, stored)];
			const news = [await bench(newScript, stored)];
			copies.push(await bench(copyScript, stored));
			news.push(await bench(newScript, stored));
			const r = {
				rows,
				newMs: Math.min(...news),
				copyMs: Math.min(...copies),
				transactions: o.transactions,
			};
			runs.push(r);
			o.log(
				`B5 remedy at ${rows} rows: new id ${news.join(', ')} ms, copy ${copies.join(', ')} ms per statement`,
			);
		};
		await measure(1000, Number(await sql('SELECT count(*) FROM recruiting_analysis_event_once')));
		// The fill: rows inserted without their indexes, which are then built once (as a restore would).
		const t0 = Date.now();
		await sql(
			'ALTER TABLE recruiting_analysis_event_once DROP CONSTRAINT recruiting_analysis_event_once_pkey; DROP INDEX recruiting_analysis_event_once_seen_at',
		);
		await sql(fill(1001, o.rows));
		await sql(
			"SET maintenance_work_mem = '1GB'; CREATE INDEX recruiting_analysis_event_once_seen_at ON recruiting_analysis_event_once (seen_at)",
		);
		await sql(
			"SET maintenance_work_mem = '1GB'; ALTER TABLE recruiting_analysis_event_once ADD PRIMARY KEY (event_id)",
		);
		const fillSeconds = Math.round((Date.now() - t0) / 1000);
		const count = Number(await sql('SELECT count(*) FROM recruiting_analysis_event_once'));
		const totalMb = Math.round(
			Number(await sql("SELECT pg_total_relation_size('recruiting_analysis_event_once')")) / 1e6,
		);
		o.log(`B5 remedy: ${count} rows, ${totalMb} MB with indexes, filled in ${fillSeconds} s`);
		await measure(o.rows, count);
		return { postgres, serverSettings, runs, fillSeconds, totalMb };
	} finally {
		await pg.stop();
	}
}
