/**
 * The four waste tools as ToolImplementations: parametrised SQL built from the catalog's zod params (never string
 * concatenation of values). Date ranges are inclusive; `limit` defaults to 100; rows match the catalog's Row
 * schemas exactly (dates as YYYY-MM-DD strings).
 */
import { z } from 'zod';
import type { ToolSpec } from '../../domain/tool-spec';
import type { ToolImplementation } from '../tool';
import {
  ContaminantDetectionRow,
  ContaminantsDetectedParams,
  FacilitiesParams,
  FacilityRow,
  InspectionRow,
  InspectionsParams,
  ShipmentRow,
  ShipmentsParams,
  WASTE_CATALOG,
} from './catalog';
import { WASTE_SCHEMA, type Queryable } from './database';

export const DEFAULT_LIMIT = 100;
const S = WASTE_SCHEMA;

/** WHERE clauses with numbered placeholders; values travel as parameters. */
class Where {
  readonly args: unknown[] = [];
  private readonly clauses: string[] = [];

  /** `clause` receives the placeholder (`$3`) of `value`; skipped when value is undefined. */
  add(value: unknown, clause: (p: string) => string): this {
    if (value === undefined) return this;
    this.args.push(value);
    this.clauses.push(clause(`$${this.args.length}`));
    return this;
  }

  sql(): string {
    return this.clauses.length ? `WHERE ${this.clauses.join(' AND ')}` : '';
  }

  limit(value: number | undefined): string {
    this.args.push(value ?? DEFAULT_LIMIT);
    return `LIMIT $${this.args.length}`;
  }
}

function spec(name: string): ToolSpec {
  const found = WASTE_CATALOG.find((t) => t.name === name);
  if (!found) throw new Error(`waste catalog has no tool "${name}"`);
  return found;
}

export function createWasteTools(db: Queryable): ToolImplementation[] {
  const shipments: ToolImplementation<z.output<typeof ShipmentsParams>> = {
    spec: spec('shipments'),
    paramsSchema: ShipmentsParams,
    resultSchema: z.array(ShipmentRow),
    async run(p) {
      const w = new Where()
        .add(p.date_from, (x) => `shipped_on >= ${x}::date`)
        .add(p.date_to, (x) => `shipped_on <= ${x}::date`)
        .add(p.has_contaminants, (x) => `has_contaminants = ${x}::boolean`)
        .add(p.status, (x) => `status = ${x}`)
        .add(p.facility_id, (x) => `upper(facility_id) = upper(${x})`)
        .add(p.carrier, (x) => `lower(carrier) = lower(${x})`);
      const sql = `SELECT id, facility_id, carrier, to_char(shipped_on, 'YYYY-MM-DD') AS shipped_on, status, waste_type,
          weight_kg, has_contaminants
        FROM ${S}.shipments ${w.sql()} ORDER BY shipped_on DESC, id ${w.limit(p.limit)}`;
      return { data: await db.query(sql, w.args) };
    },
  };

  const facilities: ToolImplementation<z.output<typeof FacilitiesParams>> = {
    spec: spec('facilities'),
    paramsSchema: FacilitiesParams,
    resultSchema: z.array(FacilityRow),
    async run(p) {
      const w = new Where()
        .add(p.location?.trim(), (x) => `lower(location) = lower(${x})`)
        .add(p.type, (x) => `type = ${x}`)
        .add(p.min_capacity_tons, (x) => `capacity_tons >= ${x}::float8`);
      const sql = `SELECT id, name, location, type, capacity_tons FROM ${S}.facilities ${w.sql()} ORDER BY id ${w.limit(p.limit)}`;
      return { data: await db.query(sql, w.args) };
    },
  };

  const contaminants: ToolImplementation<z.output<typeof ContaminantsDetectedParams>> = {
    spec: spec('contaminants-detected'),
    paramsSchema: ContaminantsDetectedParams,
    resultSchema: z.array(ContaminantDetectionRow),
    async run(p) {
      const w = new Where()
        .add(p.shipment_ids, (x) => `shipment_id = ANY(${x}::text[])`)
        .add(p.facility_id, (x) => `upper(facility_id) = upper(${x})`)
        .add(p.date_from, (x) => `detected_on >= ${x}::date`)
        .add(p.date_to, (x) => `detected_on <= ${x}::date`)
        .add(p.risk_level, (x) => `risk_level = ${x}`)
        .add(p.contaminant, (x) => `lower(contaminant) = lower(${x})`);
      const sql = `SELECT id, shipment_id, facility_id, contaminant, risk_level, concentration_ppm,
          to_char(detected_on, 'YYYY-MM-DD') AS detected_on
        FROM ${S}.contaminant_detections ${w.sql()} ORDER BY detected_on DESC, id ${w.limit(p.limit)}`;
      return { data: await db.query(sql, w.args) };
    },
  };

  const inspections: ToolImplementation<z.output<typeof InspectionsParams>> = {
    spec: spec('inspections'),
    paramsSchema: InspectionsParams,
    resultSchema: z.array(InspectionRow),
    async run(p) {
      const w = new Where()
        .add(p.status, (x) => `status = ${x}`)
        .add(p.date_from, (x) => `inspected_on >= ${x}::date`)
        .add(p.date_to, (x) => `inspected_on <= ${x}::date`)
        .add(p.facility_id, (x) => `upper(facility_id) = upper(${x})`)
        .add(p.shipment_ids, (x) => `shipment_id = ANY(${x}::text[])`);
      const sql = `SELECT id, shipment_id, facility_id, status, to_char(inspected_on, 'YYYY-MM-DD') AS inspected_on, inspector, notes
        FROM ${S}.inspections ${w.sql()} ORDER BY inspected_on DESC, id ${w.limit(p.limit)}`;
      return { data: await db.query(sql, w.args) };
    },
  };

  return [shipments, facilities, contaminants, inspections];
}
