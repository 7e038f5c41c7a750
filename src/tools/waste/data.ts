/**
 * The demo data set, generated deterministically (fixed-seed PRNG) relative to `today`, so relative questions
 * ("today", "this week", "last week") always have answers: 8 facilities, 5 shipments a day over the 60 days up to
 * today, contaminant detections for roughly a quarter of the shipments, inspections for most of them.
 *
 * Guaranteed regardless of the date: every day has at least one contaminated shipment; today the first Hannover
 * facility (FAC-01) has contaminant detections, one of them high-risk in a shipment whose inspection today was
 * accepted (so "this week" always has accepted inspections of shipments with high-risk contaminants).
 */
import type { z } from 'zod';
import type { ContaminantDetectionRow, FacilityRow, InspectionRow, ShipmentRow } from './catalog';
import { seededRandom } from '../../seeded-random';

export type Facility = z.output<typeof FacilityRow>;
export type Shipment = z.output<typeof ShipmentRow>;
export type ContaminantDetection = z.output<typeof ContaminantDetectionRow>;
export type Inspection = z.output<typeof InspectionRow>;

export interface WasteDataSet {
  today: string;
  facilities: Facility[];
  shipments: Shipment[];
  detections: ContaminantDetection[];
  inspections: Inspection[];
}

export const DAYS = 60;
export const SHIPMENTS_PER_DAY = 5;
const SEED = 0x5eed_2025;
const DAY_MS = 86_400_000;

export const FACILITIES: readonly Facility[] = [
  { id: 'FAC-01', name: 'Hannover Nord Sorting Center', location: 'Hannover', type: 'sorting', capacity_tons: 450 },
  { id: 'FAC-02', name: 'Bremen Weser Recycling Works', location: 'Bremen', type: 'recycling', capacity_tons: 320 },
  {
    id: 'FAC-03',
    name: 'Hamburg Hafen Incineration Plant',
    location: 'Hamburg',
    type: 'incineration',
    capacity_tons: 900,
  },
  { id: 'FAC-04', name: 'Berlin Spree Recycling Hub', location: 'Berlin', type: 'recycling', capacity_tons: 600 },
  { id: 'FAC-05', name: 'Köln Rhein Composting Site', location: 'Köln', type: 'composting', capacity_tons: 180 },
  { id: 'FAC-06', name: 'München Süd Landfill', location: 'München', type: 'landfill', capacity_tons: 1200 },
  {
    id: 'FAC-07',
    name: 'Hannover Linden Incineration Plant',
    location: 'Hannover',
    type: 'incineration',
    capacity_tons: 750,
  },
  { id: 'FAC-08', name: 'Leipzig Ost Sorting Center', location: 'Leipzig', type: 'sorting', capacity_tons: 280 },
];

const CARRIERS = ['Nordlogistik GmbH', 'EcoTrans AG', 'Rhein Cargo GmbH', 'Hanse Entsorgung', 'GreenHaul Logistics'];
const WASTE_TYPES = [
  'mixed municipal',
  'plastics',
  'metal',
  'paper',
  'glass',
  'organic',
  'construction debris',
  'electronics',
  'industrial sludge',
];
const CONTAMINANTS = ['lead', 'asbestos', 'PCB', 'mercury', 'cadmium', 'hydrocarbons', 'chromium', 'dioxins'];
const RISKS = ['low', 'medium', 'high', 'critical'] as const;
type Risk = (typeof RISKS)[number];
const RISK_WEIGHTS = [0.35, 0.3, 0.25, 0.1];
const PPM: Record<Risk, [number, number]> = {
  low: [1, 50],
  medium: [50, 200],
  high: [200, 800],
  critical: [800, 3000],
};
const INSPECTORS = ['A. Becker', 'M. Schulz', 'K. Wagner', 'J. Hoffmann', 'L. Fischer', 'S. Weber'];

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** `today` as a YYYY-MM-DD string (a Date is taken in UTC). */
export function isoDay(today: string | Date): string {
  const text = typeof today === 'string' ? today.slice(0, 10) : today.toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(Date.parse(`${text}T00:00:00Z`))) {
    throw new Error(`today must be a date (YYYY-MM-DD or a Date), got "${String(today)}"`);
  }
  return text;
}

export function generateWasteData(todayInput: string | Date): WasteDataSet {
  const today = isoDay(todayInput);
  const todayMs = Date.parse(`${today}T00:00:00Z`);
  const dayOf = (offset: number) => new Date(todayMs - offset * DAY_MS).toISOString().slice(0, 10);
  const rnd = seededRandom(SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  const between = (lo: number, hi: number) => lo + rnd() * (hi - lo);
  const weighted = <T>(items: readonly T[], weights: readonly number[]): T => {
    let r = rnd();
    for (let i = 0; i < items.length; i++) {
      r -= weights[i]!;
      if (r < 0) return items[i]!;
    }
    return items[items.length - 1]!;
  };

  const shipments: Shipment[] = [];
  const detections: ContaminantDetection[] = [];
  const inspections: Inspection[] = [];

  for (let offset = DAYS - 1; offset >= 0; offset--) {
    const day = dayOf(offset);
    const contaminated = Array.from({ length: SHIPMENTS_PER_DAY }, () => rnd() < 0.25);
    if (!contaminated.includes(true)) contaminated[Math.floor(rnd() * SHIPMENTS_PER_DAY)] = true;

    for (let k = 0; k < SHIPMENTS_PER_DAY; k++) {
      const id = `SHP-${pad(shipments.length + 1, 4)}`;
      // Today's first two shipments go to FAC-01 (the first Hannover facility) and are contaminated.
      const forced = offset === 0 && k < 2;
      const facility = forced ? FACILITIES[0]! : pick(FACILITIES);
      const hasContaminants = forced || contaminated[k]!;
      const shipment: Shipment = {
        id,
        facility_id: facility.id,
        carrier: pick(CARRIERS),
        shipped_on: day,
        status: 'pending',
        waste_type: pick(WASTE_TYPES),
        weight_kg: Math.round(between(500, 24_000) / 10) * 10,
        has_contaminants: hasContaminants,
      };

      let worst = -1;
      if (hasContaminants) {
        const count = rnd() < 0.3 ? 2 : 1;
        for (let c = 0; c < count; c++) {
          let risk = weighted(RISKS, RISK_WEIGHTS);
          if (forced && c === 0) risk = k === 0 ? 'high' : 'critical';
          worst = Math.max(worst, RISKS.indexOf(risk));
          const [lo, hi] = PPM[risk];
          detections.push({
            id: `CON-${pad(detections.length + 1, 4)}`,
            shipment_id: id,
            facility_id: facility.id,
            contaminant: forced && c === 0 ? (k === 0 ? 'lead' : 'asbestos') : pick(CONTAMINANTS),
            risk_level: risk,
            concentration_ppm: Math.round(between(lo, hi) * 10) / 10,
            detected_on: day,
          });
        }
      }

      // Most shipments are inspected, the same day or the next (never after today).
      const inspected = forced || rnd() < 0.9;
      if (inspected) {
        const inspectedOffset = forced ? 0 : Math.max(0, offset - (rnd() < 0.4 ? 1 : 0));
        let status: 'accepted' | 'rejected' | 'pending';
        if (forced) status = k === 0 ? 'accepted' : 'pending';
        else if (inspectedOffset === 0 && rnd() < 0.5) status = 'pending';
        else {
          const rejectChance = worst >= 2 ? 0.55 : worst >= 0 ? 0.2 : 0.05;
          status = rnd() < rejectChance ? 'rejected' : 'accepted';
        }
        inspections.push({
          id: `INS-${pad(inspections.length + 1, 4)}`,
          shipment_id: id,
          facility_id: facility.id,
          status,
          inspected_on: dayOf(inspectedOffset),
          inspector: pick(INSPECTORS),
          notes: notesFor(status, worst, hasContaminants),
        });
        shipment.status = status === 'accepted' ? 'delivered' : status === 'rejected' ? 'rejected' : 'in_transit';
      } else {
        shipment.status = offset <= 1 ? 'in_transit' : 'delivered';
      }
      if (offset === 0 && !forced && !inspected) shipment.status = 'pending';
      shipments.push(shipment);
    }
  }
  return { today, facilities: FACILITIES.map((f) => ({ ...f })), shipments, detections, inspections };
}

function notesFor(status: string, worst: number, contaminated: boolean): string {
  if (status === 'pending')
    return contaminated ? 'Awaiting lab results for detected contaminants' : 'Awaiting visual inspection';
  if (status === 'rejected')
    return contaminated
      ? `Rejected: ${RISKS[Math.max(0, worst)]}-risk contamination above acceptance threshold`
      : 'Rejected: load does not match manifest';
  return contaminated
    ? `Accepted with ${RISKS[Math.max(0, worst)]}-risk contamination, routed to special treatment`
    : 'Load matches manifest';
}
