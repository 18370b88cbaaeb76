/**
 * Imports every job module so each registers its handler with the runner. Add one line per
 * job kind.
 */
import './lead-import';
import './export';
