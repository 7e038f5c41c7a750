/**
 * The waste-management demo catalog: shipments, facilities, contaminants-detected, inspections — the tools and
 * filters the seed scenarios plan over. This module is the catalog only (what the planner sees); the tools' SQL
 * implementations live beside it.
 */
import { z } from 'zod';
import type { ClarificationLexicon } from '../../domain/requirements';
import { toolSpecFromZod, type ToolSpec } from '../../domain/tool-spec';

export const WASTE_TOOLS_QUEUE = 'durable-planner-tools-waste';

const isoDate = z.iso.date();
/** Ids as the data has them, so a plan's literal can be told from a name ("FAC-01", not "Hannover"). */
const facilityId = z
  .string()
  .regex(/^FAC-\d{2}$/)
  .meta({ examples: ['FAC-01'] });
const shipmentId = z
  .string()
  .regex(/^SHP-\d{4}$/)
  .meta({ examples: ['SHP-0001'] });
const limit = z.number().int().min(1).max(1000).optional().describe('Maximum number of rows to return');

export const ShipmentsParams = z.object({
  date_from: isoDate.optional().describe('Earliest shipment date (YYYY-MM-DD), inclusive'),
  date_to: isoDate.optional().describe('Latest shipment date (YYYY-MM-DD), inclusive'),
  has_contaminants: z.boolean().optional().describe('Only contaminated shipments (contaminants were detected)'),
  status: z.enum(['pending', 'in_transit', 'delivered', 'rejected']).optional().describe('Shipment status'),
  facility_id: facilityId.optional().describe('Destination facility id (from facilities)'),
  carrier: z.string().optional().describe('Carrier company name'),
  limit,
});
export const ShipmentRow = z.object({
  id: z.string(),
  facility_id: z.string(),
  carrier: z.string(),
  shipped_on: isoDate,
  status: z.string(),
  waste_type: z.string(),
  weight_kg: z.number(),
  has_contaminants: z.boolean(),
});

export const FacilitiesParams = z.object({
  location: z.string().optional().describe('City where the facility is located, e.g. Hannover'),
  type: z.enum(['sorting', 'recycling', 'incineration', 'landfill', 'composting']).optional().describe('Facility type'),
  min_capacity_tons: z.number().nonnegative().optional().describe('Minimum daily capacity in tons'),
  limit,
});
export const FacilityRow = z.object({
  id: z.string(),
  name: z.string(),
  location: z.string(),
  type: z.string(),
  capacity_tons: z.number(),
});

export const ContaminantsDetectedParams = z.object({
  shipment_ids: z.array(shipmentId).optional().describe('Only detections in these shipments (ids from shipments)'),
  facility_id: facilityId.optional().describe('Only detections at this facility (id from facilities)'),
  date_from: isoDate.optional().describe('Earliest detection date (YYYY-MM-DD), inclusive'),
  date_to: isoDate.optional().describe('Latest detection date (YYYY-MM-DD), inclusive'),
  risk_level: z.enum(['low', 'medium', 'high', 'critical']).optional().describe('Risk level of the contaminant'),
  contaminant: z.string().optional().describe('Contaminant name, e.g. lead, asbestos, PCB'),
  limit,
});
export const ContaminantDetectionRow = z.object({
  id: z.string(),
  shipment_id: z.string(),
  facility_id: z.string(),
  contaminant: z.string(),
  risk_level: z.string(),
  concentration_ppm: z.number(),
  detected_on: isoDate,
});

export const InspectionsParams = z.object({
  status: z.enum(['accepted', 'rejected', 'pending']).optional().describe('Inspection outcome'),
  date_from: isoDate.optional().describe('Earliest inspection date (YYYY-MM-DD), inclusive'),
  date_to: isoDate.optional().describe('Latest inspection date (YYYY-MM-DD), inclusive'),
  facility_id: facilityId.optional().describe('Only inspections at this facility (id from facilities)'),
  shipment_ids: z.array(shipmentId).optional().describe('Only inspections of these shipments (ids from shipments)'),
  limit,
});
export const InspectionRow = z.object({
  id: z.string(),
  shipment_id: z.string(),
  facility_id: z.string(),
  status: z.string(),
  inspected_on: isoDate,
  inspector: z.string(),
  notes: z.string(),
});

const common = { task_queue: WASTE_TOOLS_QUEUE, idempotent: true, cost_per_call_usd: 0.0001, tokens_per_call: 300 };

export const WASTE_CATALOG: ToolSpec[] = [
  toolSpecFromZod({
    ...common,
    name: 'shipments',
    description: 'List waste shipments, filtered by date range, contamination, status, facility or carrier.',
    params: ShipmentsParams,
    result: z.array(ShipmentRow),
    tags: ['shipment', 'delivery', 'transport', 'load', 'cargo'],
  }),
  toolSpecFromZod({
    ...common,
    name: 'facilities',
    description: 'List waste facilities (sorting, recycling, incineration, landfill, composting) by location and type.',
    params: FacilitiesParams,
    result: z.array(FacilityRow),
    tags: ['facility', 'site', 'plant', 'location', 'city'],
  }),
  toolSpecFromZod({
    ...common,
    name: 'contaminants-detected',
    description: 'List contaminants detected in shipments, by shipment, facility, date range, risk level or name.',
    params: ContaminantsDetectedParams,
    result: z.array(ContaminantDetectionRow),
    tags: ['contaminant', 'contamination', 'pollutant', 'detection', 'hazard', 'risk'],
  }),
  toolSpecFromZod({
    ...common,
    name: 'inspections',
    description:
      'List shipment inspections at facilities, by outcome (accepted, rejected, pending), date range or facility.',
    params: InspectionsParams,
    result: z.array(InspectionRow),
    tags: ['inspection', 'audit', 'check', 'acceptance'],
  }),
];

/** What the rule analyzer asks when a goal names only a vague word of this domain ("Check the reports"). */
export const WASTE_CLARIFICATIONS: ClarificationLexicon = {
  report: {
    question: 'Which report do you need?',
    options: ['Shipments from last week', 'Contaminants detected this month', 'Inspections rejected this week'],
  },
};
