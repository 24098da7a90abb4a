/** Where blocks stand: the main flow (indented paragraphs are quotations there) and list depth. */
export interface Context {
  flow: boolean;
  listLevel: number;
  listStyle: string | undefined;
}

export const FLOW: Context = { flow: true, listLevel: 0, listStyle: undefined };
/** Table cells, notes, text boxes: not the main flow, and lists start again at level 1. */
export const NESTED: Context = { flow: false, listLevel: 0, listStyle: undefined };
