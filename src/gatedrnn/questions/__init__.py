"""Beyond the study (section G): the questions it left open, one module each
(its table and its sentences): :mod:`.reset_gate`, :mod:`.split_by_width`,
:mod:`.two_layers`, :mod:`.longer_training`, :mod:`.cho_gru`, :mod:`.long_memory`;
:mod:`.report` assembles ``open_questions.md`` from their sentences. The two whose
tables run trained models (G1, G6) keep their sentences apart (:mod:`.reset_gate_words`,
:mod:`.long_memory_words`), so that the report imports no torch.

Every table function takes plain data (summaries as dicts, histories as frames,
loaded models, probe gates) and returns a DataFrame; each module's ``write_*``
function reads a rule's input files and writes its output. Losses are nats/char;
``loss_difference`` is always "the variant minus its reference", so a positive
number means the variant is worse.
"""
