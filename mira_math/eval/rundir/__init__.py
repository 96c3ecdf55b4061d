"""The run directory, in one place: its file names, its writer (lock, preparation, transcript
log) and its readers (manifest, dataset, runs, transcripts, fingerprints), for the runner
(which writes it), scoring, the viewer and the audit (which read it).

A run directory holds::

    manifest.json        the configuration, dataset checksum and versions (written once, first)
    transcripts.jsonl    one line per finished episode, appended as episodes finish
    .lock                held by the one process running into it
    scores.json/.csv     written by ``score`` (reused while the transcripts are unchanged)
    audit.json           written by ``audit``

The modules, bottom to top (each imports only those before it): :mod:`.files` (names, the
manifest reader, field checks), :mod:`.dataset` (a run's dataset, read lightly), :mod:`.runs`
(runs from manifests: identity, shards, labels), :mod:`.transcripts` (the transcript reader and
fingerprints), :mod:`.manifest` (what a manifest holds) and :mod:`.writer`. What the transcripts
*mean* (metrics, groups) stays with :mod:`mira_math.eval.scoring`.
"""

from __future__ import annotations

from mira_math.eval.rundir.dataset import (Dataset, InstanceInfo, clear_caches, file_infos, file_judges,
                                           read_instance_info, read_run_dataset, resolve_data_file)
from mira_math.eval.rundir.files import (AUDIT_JSON, LOCK, MANIFEST, MANIFEST_STRINGS, SCORES_CSV, SCORES_JSON,
                                         TRANSCRIPTS, RunDirError, ScoringError, declared_shard, finished_ids,
                                         json_lines, read_manifest)
from mira_math.eval.rundir.manifest import RECORDED_PACKAGES, RunConfig, manifest, mira_math_versions, package_versions
from mira_math.eval.rundir.runs import RunInfo, assign_labels, group_runs, run_epochs, selected_count, short_spec
from mira_math.eval.rundir.transcripts import (InstanceStats, RunRecords, content_fingerprint, fingerprint_of,
                                               instance_stats, iter_transcripts, load_records)
from mira_math.eval.rundir.writer import RunLock, TranscriptLog, prepare_run_dir, sample_key, sample_of

__all__ = ["AUDIT_JSON", "Dataset", "InstanceInfo", "InstanceStats", "LOCK", "MANIFEST", "MANIFEST_STRINGS",
           "RECORDED_PACKAGES", "RunConfig", "RunDirError", "RunInfo", "RunLock", "RunRecords", "SCORES_CSV",
           "SCORES_JSON", "ScoringError", "TRANSCRIPTS", "TranscriptLog", "assign_labels", "clear_caches",
           "content_fingerprint", "declared_shard", "file_infos", "file_judges", "fingerprint_of",
           "finished_ids", "group_runs", "instance_stats", "iter_transcripts", "json_lines", "load_records",
           "manifest", "mira_math_versions", "package_versions", "prepare_run_dir", "read_instance_info",
           "read_manifest", "read_run_dataset", "resolve_data_file", "run_epochs", "sample_key", "sample_of",
           "selected_count", "short_spec"]
