"""Fast simulation through real shoes: compiled kernels, seeded batches, workers.

Each game family has a kernel in its package (``cardroom.games.baccarat.kernel``,
``cardroom.games.finnish.kernel``, ``cardroom.games.chemin_de_fer.kernel``) compiled with
Numba that plays whole shoes (shuffle, burn, reshuffle point) and sums the
results.  The kernels read the rules from tables built out of the engine's own
functions (card values, tableau, hit/stand tables, comparisons, paytables), and a
differential test plays each kernel and the engine on the same shoes and demands
identical outcomes and net results.  :mod:`.runner` splits a run into fixed
batches with seeds derived from one seed (NumPy ``SeedSequence``), so a run gives
the same counts on any number of workers or on a Ray cluster.
"""
