-- ntprof recording (.ntp), schema version 1.
-- The single source of the schema: embedded into ntprof at build time and read
-- by the test fixtures.  Documented in ntprof-ntp(5).  Raw tables hold what was
-- measured; views derive the stages and may be rebuilt by later versions.
-- All times are integer nanoseconds on the recording machine's CLOCK_MONOTONIC.
PRAGMA application_id = 1314148422;  -- 0x4E545046, 'NTPF'
PRAGMA user_version = 1;

-- Run metadata: role, transport ('tcp' | 'rdma'), sample_one_in, hash_version,
-- kernel_release, hostname, boot_id, start/stop times, command line, ntprof
-- version, ...  Recordings of different transports are never joined or compared.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value ANY
) STRICT, WITHOUT ROWID;

-- The hook each stage boundary got on this kernel, its flavour and why.
CREATE TABLE hooks (
    side     TEXT NOT NULL,        -- host | target
    point    TEXT NOT NULL,        -- h_start, h_queue, h_cmd_sent, ...
    hook     TEXT NOT NULL,        -- the kernel function or tracepoint, or 'none'
    flavour  TEXT NOT NULL,        -- fentry | fexit | kprobe | kretprobe | tp_btf | raw_tp | derived | none
    reason   TEXT NOT NULL DEFAULT ''
) STRICT;

-- One row per sampled host command.  A NULL time means this kernel offered no
-- hook for that point; the views then fall back as documented.  Over RDMA
-- h_cmd_sent is the capsule posted to the HCA, h_recv the response's receive
-- completion, and h_r2t and h_data_sent are always NULL (no R2T: the target
-- pulls large write data with an RDMA READ, unseen by the host's CPU).
CREATE TABLE host_io (
    id              INTEGER PRIMARY KEY,
    h_start_ns      INTEGER NOT NULL,
    h_queue_ns      INTEGER NOT NULL,
    h_cmd_sent_ns   INTEGER,
    h_r2t_ns        INTEGER,
    h_data_sent_ns  INTEGER,
    h_recv_ns       INTEGER,
    h_done_ns       INTEGER NOT NULL,
    opcode          INTEGER NOT NULL,
    cid             INTEGER NOT NULL,
    slba            INTEGER NOT NULL,
    nlb             INTEGER NOT NULL,   -- 1-based block count
    bytes           INTEGER NOT NULL,
    qid             INTEGER NOT NULL,
    nsid            INTEGER NOT NULL,
    cntlid          INTEGER NOT NULL,
    controller      TEXT NOT NULL,      -- nvmeX
    namespace       TEXT NOT NULL,      -- nvmeXnY (the head disk with multipath)
    path            TEXT NOT NULL,      -- nvmeXcYnZ with multipath, else = namespace
    status          INTEGER NOT NULL DEFAULT 0,
    flags           INTEGER NOT NULL DEFAULT 0,
    -- The application's side (ntprof-design(7), "The application's side");
    -- NULL where not told, and in recordings made before these columns.
    h_app_submit_ns INTEGER DEFAULT NULL,  -- the submitting thread entered its I/O system call
    h_app_done_ns   INTEGER DEFAULT NULL,  -- the completion posted to the application
    h_app_reap_ns   INTEGER DEFAULT NULL,  -- the application took it (ntprof-ntp(5) per interface)
    app_kind        TEXT DEFAULT NULL,     -- what posted it: libaio | io_uring | sync
    pid             INTEGER DEFAULT NULL,  -- the submitting process (NULL: a kernel thread)
    tid             INTEGER DEFAULT NULL,  -- its thread
    comm            TEXT DEFAULT NULL,     -- the thread's name
    cgroup_id       INTEGER DEFAULT NULL,  -- the bio's cgroup v2 id (else the submitter's)
    -- The join's key (ntprof-ntp(5), join_key): the 64-bit hash of (cid, slba,
    -- nlb, qid, nsid, cntlid, opcode), so that a join reads one column, not
    -- seven.  NULL in recordings made before it: the join computes it.
    join_key        INTEGER DEFAULT NULL,
    -- Where the command ran (ntprof-ntp(5), cpu): the CPU that handed it to
    -- the driver (nvme_setup_cmd), and its queue's io_cpu, the CPU of the
    -- queue's io_work (NVMe/TCP only; NULL over RDMA); and the commands in
    -- flight on its hardware queue then, itself included (the driver tags
    -- in use).  NULL in recordings made before these columns.
    cpu             INTEGER DEFAULT NULL,
    io_cpu          INTEGER DEFAULT NULL,
    queue_in_flight INTEGER DEFAULT NULL
) STRICT;

-- One row per sampled target command, on the target's clock.  Over RDMA t_r2t
-- is the RDMA READ of a write's data posted, t_sent the response posted.
CREATE TABLE target_io (
    id              INTEGER PRIMARY KEY,
    t_recv_ns       INTEGER NOT NULL,
    t_r2t_ns        INTEGER,
    t_submit_ns     INTEGER,
    t_cmpl_ns       INTEGER,
    t_sent_ns       INTEGER NOT NULL,
    opcode          INTEGER NOT NULL,
    cid             INTEGER NOT NULL,
    slba            INTEGER NOT NULL,
    nlb             INTEGER NOT NULL,
    bytes           INTEGER NOT NULL,
    qid             INTEGER NOT NULL,
    nsid            INTEGER NOT NULL,
    cntlid          INTEGER NOT NULL,
    device          TEXT NOT NULL,
    status          INTEGER NOT NULL DEFAULT 0,
    flags           INTEGER NOT NULL DEFAULT 0,
    join_key        INTEGER DEFAULT NULL   -- as host_io's
) STRICT;

-- Counters per interval (about one second): every I/O command the decision hook
-- saw, how many were sampled, and how many sampled ones were lost.
CREATE TABLE intervals (
    t_ns          INTEGER NOT NULL,     -- end of the interval
    side          TEXT NOT NULL,
    seen          INTEGER NOT NULL,
    sampled       INTEGER NOT NULL,
    lost_ringbuf  INTEGER NOT NULL,
    lost_map      INTEGER NOT NULL
) STRICT;

-- On the target, each interval: the block-layer counters of each backend
-- device an nvmet namespace exports (/sys/block/DEV/stat), as iostat reads
-- them; they see every command of the device, ntprof's sampled ones and any
-- other load.  queue_ms / (interval_ns / 1e6) is iostat's aqu-sz, the mean
-- commands in flight.  Absent in recordings made before it.
CREATE TABLE backend_stats (
    t_ns          INTEGER NOT NULL,     -- end of the interval
    interval_ns   INTEGER NOT NULL,
    device        TEXT NOT NULL,        -- as target_io.device: /dev/nullb0
    ios           INTEGER NOT NULL,     -- completed in the interval
    in_flight     INTEGER NOT NULL,     -- at its end
    busy_ms       INTEGER NOT NULL,     -- io_ticks grown: time with any in flight
    queue_ms      INTEGER NOT NULL,     -- time_in_queue grown: in flight x time
    depth         INTEGER               -- queue/nr_requests, NULL unread
) STRICT;

-- The NVMe over Fabrics names of the machine (ntprof-ntp(5), nvmf_ids), as
-- record read them at its start and, where they changed, at its stop: what
-- ties a command's cntlid, which starts again at 1 on every target, to a
-- subsystem, a target address and a host.  A host recording has a row per
-- controller (/sys/class/nvme); a target recording a row per subsystem,
-- per port and subsystem linked to it, per namespace (nvmet's configfs) and,
-- where the kernel has nvmet's debugfs, per controller.  NULL where the
-- kernel does not tell; absent in recordings made before it.
CREATE TABLE nvmf_ids (
    side         TEXT NOT NULL,    -- host | target
    object       TEXT NOT NULL,    -- controller | subsystem | port | namespace
    name         TEXT NOT NULL,    -- nvmeX, the subsystem NQN, the port's id, the nsid, ctrlN
    subsysnqn    TEXT,             -- the subsystem's NQN
    cntlid       INTEGER,          -- a controller's id within its subsystem
    nsid         INTEGER,          -- a namespace's id
    port         TEXT,             -- the target port's id (configfs ports/<id>)
    transport    TEXT,             -- tcp | rdma | loop | fc | pcie
    traddr       TEXT,             -- the target's address
    trsvcid      TEXT,             -- its service id (the TCP port)
    host_traddr  TEXT,             -- the host's address, where the kernel tells it
    hostnqn      TEXT,             -- the host's NQN
    device       TEXT              -- a target namespace's backing device or file
) STRICT;

-- Host stages (ntprof-design(7), STAGES), host-only form: 'network_star_ns'
-- holds the network and the target together.  R2T writes keep the host's
-- work between the two round trips in 'driver'.
CREATE VIEW host_stages AS
SELECT id,
       CASE opcode WHEN 1 THEN 'write' WHEN 2 THEN 'read' ELSE 'other' END AS io_type,
       bytes, namespace, path, controller, qid, cid, slba, nlb, status,
       h_done_ns - h_start_ns AS e2e_ns,
       h_queue_ns - h_start_ns AS block_ns,
       (sent - h_queue_ns) + r2t_host + (h_done_ns - recv) AS driver_ns,
       (recv - sent) - r2t_host AS network_star_ns,
       h_start_ns, h_done_ns,
       -- the points the stages are made of, for the finer stages of readers
       h_queue_ns, sent AS sent_ns, r2t_host AS r2t_host_ns, recv AS recv_ns,
       -- the rest of the join's key (with qid, cid, slba, nlb above), and its hash
       nsid, cntlid, opcode, join_key
FROM (
    SELECT *,
           CASE WHEN h_r2t_ns IS NOT NULL AND h_data_sent_ns IS NOT NULL
                THEN COALESCE(h_cmd_sent_ns, h_queue_ns)
                ELSE MAX(COALESCE(h_cmd_sent_ns, h_queue_ns),
                         COALESCE(h_data_sent_ns, h_cmd_sent_ns, h_queue_ns))
           END AS sent,
           CASE WHEN h_r2t_ns IS NOT NULL AND h_data_sent_ns IS NOT NULL
                THEN h_data_sent_ns - h_r2t_ns ELSE 0 END AS r2t_host,
           COALESCE(h_recv_ns, h_done_ns) AS recv
    FROM host_io
);

-- The application's stages around host_stages' window (ntprof-design(7),
-- "The application's side"): 'submit_ns' from the submitting system call's
-- entry to h_start, 'complete_ns' from h_done to the completion posted to
-- the application, 'reap_ns' from there to the application taking it,
-- and 'app_e2e_ns' the sum of those known with e2e_ns (NULL without
-- submit_ns or complete_ns).  host_stages is left as it is, for its readers
-- (and for files whose host_io lacks the application's columns).  This view
-- has every column of host_stages too, after its own, computed over host_io
-- directly as host_stages computes them (tests/unit/test_db.c checks that
-- they agree row by row): a join of the two views costs the readers' scans
-- half as much again as the view itself.
CREATE VIEW host_app_stages AS
SELECT id, io_type, bytes, namespace, app_kind, pid, tid, comm, cgroup_id,
       h_start_ns - h_app_submit_ns AS submit_ns,
       h_done_ns - h_start_ns AS e2e_ns,
       h_queue_ns - h_start_ns AS block_ns,
       (sent - h_queue_ns) + r2t_host + (h_done_ns - recv) AS driver_ns,
       (recv - sent) - r2t_host AS network_star_ns,
       h_app_done_ns - h_done_ns AS complete_ns,
       h_app_reap_ns - h_app_done_ns AS reap_ns,
       CASE WHEN h_app_done_ns IS NOT NULL
            THEN COALESCE(h_app_reap_ns, h_app_done_ns) - h_app_submit_ns END AS app_e2e_ns,
       h_app_submit_ns, h_app_done_ns, h_app_reap_ns,
       -- host_stages' other columns, as it has them
       path, controller, qid, cid, slba, nlb, status, h_start_ns, h_done_ns,
       h_queue_ns, sent AS sent_ns, r2t_host AS r2t_host_ns, recv AS recv_ns,
       nsid, cntlid, opcode, join_key
FROM (
    SELECT *,
           CASE opcode WHEN 1 THEN 'write' WHEN 2 THEN 'read' ELSE 'other' END AS io_type,
           CASE WHEN h_r2t_ns IS NOT NULL AND h_data_sent_ns IS NOT NULL
                THEN COALESCE(h_cmd_sent_ns, h_queue_ns)
                ELSE MAX(COALESCE(h_cmd_sent_ns, h_queue_ns),
                         COALESCE(h_data_sent_ns, h_cmd_sent_ns, h_queue_ns))
           END AS sent,
           CASE WHEN h_r2t_ns IS NOT NULL AND h_data_sent_ns IS NOT NULL
                THEN h_data_sent_ns - h_r2t_ns ELSE 0 END AS r2t_host,
           COALESCE(h_recv_ns, h_done_ns) AS recv
    FROM host_io
);

-- Target stages (ntprof-design(7), STAGES).  'residence_ns' is what the
-- host sees as target time inside its round trip: the R2T wait (R2T queued,
-- or over RDMA the READ posted, to all write data received) is network time
-- and is left out.
CREATE VIEW target_stages AS
SELECT id,
       CASE opcode WHEN 1 THEN 'write' WHEN 2 THEN 'read' ELSE 'other' END AS io_type,
       bytes, device, qid, cid, slba, nlb, status,
       (submit - t_recv_ns) - r2t_wait + (t_sent_ns - cmpl) AS target_driver_ns,
       cmpl - submit AS storage_ns,
       (t_sent_ns - t_recv_ns) - r2t_wait AS residence_ns,
       t_recv_ns, t_sent_ns,
       -- the points the stages are made of, for the finer stages of readers
       submit AS submit_ns, cmpl AS cmpl_ns, r2t_wait AS r2t_wait_ns,
       -- the rest of the join's key (with qid, cid, slba, nlb above), and its hash
       nsid, cntlid, opcode, join_key
FROM (
    SELECT *,
           COALESCE(t_submit_ns, t_recv_ns) AS submit,
           COALESCE(t_cmpl_ns, t_submit_ns, t_recv_ns) AS cmpl,
           CASE WHEN t_r2t_ns IS NOT NULL AND t_submit_ns IS NOT NULL
                THEN t_submit_ns - t_r2t_ns ELSE 0 END AS r2t_wait
    FROM target_io
);

-- A joined recording (ntprof join, ntprof-join(1)) holds the commands of
-- its hosts and targets, each side's times as its machine recorded them, and
-- these three tables.  In every other recording they are empty, and a file
-- of an older ntprof may not have them at all.  Joined from several hosts or
-- targets, each recording's rows keep their order and get ids after the
-- previous recording's of their side.

-- The pairing: one row per joined command, made by ntprof's join
-- (ntprof-design(7), JOINING).  Each host command and each target command
-- is in at most one row.
CREATE TABLE join_pairs (
    host_id    INTEGER PRIMARY KEY,       -- host_io.id
    target_id  INTEGER NOT NULL UNIQUE,   -- target_io.id
    offset_ns  INTEGER NOT NULL,          -- target clock - host clock at its h_queue_ns
    h_occ      INTEGER NOT NULL,          -- 1-based occurrence of its key on each side,
    t_occ      INTEGER NOT NULL,          -- in time order
    pair       INTEGER DEFAULT NULL       -- its (host, target) combination: join_clock.pair
) STRICT;

-- The clock estimate and the join's counts: one row per (host recording,
-- target recording) combination joined, one row for one host and one
-- target.  The offset line is offset(t) = offset_ns + drift * (t - t0_ns)
-- for a host time t; on one clock (clock 'one recording' or 'one boot')
-- both are 0, not estimated.  matched is the combination's; unmatched_host,
-- unmatched_target and rejected are the whole join's, in every row.
CREATE TABLE join_clock (
    clock             TEXT NOT NULL,      -- two clocks | one recording | one boot
    estimated         INTEGER NOT NULL,   -- 0: too few pairs agreed; nothing joined
    t0_ns             INTEGER NOT NULL,   -- host time the line is centred on
    offset_ns         REAL NOT NULL,      -- target clock - host clock at t0_ns
    drift             REAL NOT NULL,      -- d offset / d host time (12e-6: 12 ppm)
    tolerance_ns      REAL NOT NULL,      -- how far a pair's bound may miss the line
    candidates        INTEGER NOT NULL,   -- same-key pairs the estimate looked at
    support           INTEGER NOT NULL,   -- of those, pairs agreeing with the line
    matched           INTEGER NOT NULL,   -- rows of join_pairs
    unmatched_host    INTEGER NOT NULL,
    unmatched_target  INTEGER NOT NULL,
    rejected          INTEGER NOT NULL,   -- host commands with a same-key record outside the bound
    host_file         TEXT NOT NULL,      -- the recordings joined, as named to ntprof join
    target_file       TEXT NOT NULL,
    pair              INTEGER DEFAULT NULL   -- 0, 1, ...: which join_pairs.pair names (NULL: 0)
) STRICT;

-- The meta of each recording joined, as it was (side host | target, or
-- both for one "-r both" recording; 'host 2', 'target 2', ... for the
-- second and later recordings of a side, in the order given); meta itself
-- is the first host's, with role 'joined'.
CREATE TABLE join_meta (
    side   TEXT NOT NULL,
    key    TEXT NOT NULL,
    value  ANY,
    PRIMARY KEY (side, key)
) STRICT, WITHOUT ROWID;

-- The five joined stages (ntprof-design(7), STAGES) of every command in
-- join_pairs, from the two stage views: network is the host's network*
-- less the target's residence.  The target's times are on its own clock;
-- minus offset_ns they are on the host's.
CREATE VIEW joined_stages AS
SELECT p.host_id, p.target_id,
       h.io_type, h.bytes, h.namespace, h.path, h.controller, t.device,
       h.qid, h.cid, h.slba, h.nlb, h.status, t.status AS t_status,
       h.e2e_ns, h.block_ns, h.driver_ns,
       h.network_star_ns - t.residence_ns AS network_ns,
       t.target_driver_ns, t.storage_ns,
       h.h_start_ns, h.h_done_ns,
       t.t_recv_ns - p.offset_ns AS t_recv_host_ns,
       t.t_sent_ns - p.offset_ns AS t_sent_host_ns,
       p.offset_ns
FROM join_pairs p
JOIN host_stages h ON h.id = p.host_id
JOIN target_stages t ON t.id = p.target_id;
