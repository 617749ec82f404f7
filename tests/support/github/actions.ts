// Workflow runs: the ones a test registers, and cancelling them through the Actions API.
import { DOCS, HttpError, intParam, notAccessible, notFound } from './replies.js';
import type { HandlerTable } from './replies.js';
import type { Emu } from './state.js';
import type { WorkflowRunState } from './types.js';

export function actionsHandlers(emu: Emu): HandlerTable {
  return {
    'actions/cancel-workflow-run': ({ match }) => {
      const docs = `${DOCS}/actions/workflow-runs#cancel-a-workflow-run`;
      if (emu.options.actionsWrite === false) throw notAccessible(docs);
      const run = emu.state.workflowRuns.get(intParam(match, 'run_id'));
      if (!run) throw notFound();
      if (run.status === 'completed') {
        throw new HttpError(409, {
          message: 'Cannot cancel a workflow run that is completed.',
          documentation_url: docs,
          status: '409',
        });
      }
      run.status = 'completed';
      run.conclusion = 'cancelled';
      run.onCancel?.();
      return { status: 202, body: {} };
    },
  };
}

/** Registers a workflow run (in progress unless said otherwise) that the API may be asked to cancel. */
export function addWorkflowRun(
  emu: Emu,
  run: Omit<WorkflowRunState, 'status'> & { status?: WorkflowRunState['status'] },
): WorkflowRunState {
  const added: WorkflowRunState = { status: 'in_progress', ...run };
  emu.state.workflowRuns.set(added.id, added);
  return added;
}
