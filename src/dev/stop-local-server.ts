/** `npm run dev:stop`: stops the background dev server that the demo (or `planner dev`) started. */
import { LOCAL_SERVER_PID_FILE, stopLocalDevServer } from './temporal-server';

stopLocalDevServer().then(
  (pid) => console.log(pid ? `Stopped the Temporal dev server (pid ${pid}).` : `No dev server recorded in ${LOCAL_SERVER_PID_FILE}.`),
  (err) => {
    console.error(`Could not stop the dev server: ${(err as Error).message}`);
    process.exit(1);
  },
);
