/**
 * A second domain the planner's rules were not written for: a lending library (members, books, loans). Tests run
 * the domain-independent rules (constraints reach a tool, ids come from data, one call per id) on it as on waste.
 */
import { z } from 'zod';
import { toolSpecFromZod, type ToolSpec } from '../../src/domain/tool-spec';

const common = { task_queue: 'library-tools', idempotent: true };
const date = z.iso.date();

export const LIBRARY_CATALOG: ToolSpec[] = [
  toolSpecFromZod({
    ...common,
    name: 'members',
    description: 'List library members by the city they live in and their membership.',
    params: z.object({
      city: z.string().optional().describe('City the member lives in'),
      membership: z.enum(['student', 'staff', 'public']).optional().describe('Kind of membership'),
    }),
    result: z.array(z.object({ id: z.string(), name: z.string(), city: z.string(), membership: z.string() })),
    tags: ['member', 'reader', 'borrower'],
  }),
  toolSpecFromZod({
    ...common,
    name: 'books',
    description: 'List books of the catalogue by author and genre.',
    params: z.object({
      author: z.string().optional().describe("Author's full name"),
      genre: z.enum(['fiction', 'history', 'science', 'poetry']).optional().describe('Genre'),
      min_pages: z.number().int().optional().describe('Only books with at least this many pages'),
    }),
    result: z.array(
      z.object({ id: z.string(), title: z.string(), author: z.string(), genre: z.string(), pages: z.number() }),
    ),
    tags: ['book', 'title', 'catalogue'],
  }),
  toolSpecFromZod({
    ...common,
    name: 'loans',
    description: 'List loans of books to members, by member, book, loan status and date.',
    params: z.object({
      member_id: z.string().optional().describe('Only loans of this member (an id from members)'),
      book_ids: z.array(z.string()).optional().describe('Only loans of these books'),
      status: z.enum(['open', 'returned', 'overdue']).optional().describe('Loan status'),
      since: date.optional().describe('Loans made on or after this date'),
      until: date.optional().describe('Loans made on or before this date'),
    }),
    result: z.array(
      z.object({ id: z.string(), member_id: z.string(), book_id: z.string(), status: z.string(), lent_on: date }),
    ),
    tags: ['loan', 'borrowing', 'lending'],
  }),
];
