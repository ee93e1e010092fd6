"""A fixed set as an Inspect task (DR-014): ``inspect eval pyapp/bridges/inspect_task.py --model PROVIDER/MODEL
-T set=explain-eval-x80 [--epochs K]``.

Each case is asked with the exact prompt the site sends; the answer is graded by the same grading function as
every run of ours, and each of the five checks is a scorer beside ``grounded``. Epochs are repeats: read back
(``python -m pyapp report LOG``), each epoch is a run of one configuration. Defaults are ``run``'s: 4,000 max
tokens, temperature 0; ``--max-tokens`` and ``--temperature`` change them.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState, generate

from pyapp.bridges.inspect_cases import case_input, case_metadata, case_target
from pyapp.bridges.inspect_names import DEFAULT_MAX_TOKENS, stop_of, task_name
from pyapp.bridges.inspect_scores import CHECK_NAMES, check_score, grounded_score
from pyapp.evaluation.evalset import EVAL_SET_VERSION, FIXED_SETS
from pyapp.evaluation.grader import Grader
from pyapp.explanation.grading import Grade
from pyapp.explanation.prompt import PROMPT_VERSION


@task
def explain_search(set: str = EVAL_SET_VERSION) -> Task:
    """The cases of fixed set ``set``, asked and graded as the site asks and grades them."""
    cases = FIXED_SETS.cases(FIXED_SETS.check(set))
    samples = [Sample(id=c.case_id, input=case_input(c), target=case_target(c), metadata=case_metadata(c, set, i))
               for i, c in enumerate(cases, start=1)]
    grader = Grader()  # one per task: each answer is graded once, for all six scorers
    return Task(
        name=task_name(set, PROMPT_VERSION),
        version=PROMPT_VERSION,
        dataset=MemoryDataset(samples, name=set),
        solver=generate(),
        scorer=[grounded(grader), *(check(grader, name) for name in CHECK_NAMES)],
        config=GenerateConfig(max_tokens=DEFAULT_MAX_TOKENS, temperature=0.0),
    )


def _grade(state: TaskState, grader: Grader) -> Grade:
    """The grade of the sample's answer, by the grader the rebuild of its log would use."""
    case = FIXED_SETS.case(state.metadata["case_id"], state.metadata["set"])
    return grader.grade(case, state.output.completion, stop_of(state.output.stop_reason), state.metadata["set"])


@scorer(metrics=[accuracy(), stderr()])
def grounded(grader: Grader) -> Scorer:
    """C when all five checks pass; the outcome class (grounded, not grounded, model failure) is its answer."""

    async def score(state: TaskState, target: Target) -> Score:
        return grounded_score(_grade(state, grader))

    return score


def check(grader: Grader, name: str) -> Scorer:
    """The scorer of check ``name``: C or I with the check's reason, N for a model failure."""

    @scorer(metrics=[accuracy(), stderr()], name=name)
    def one_check() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            return check_score(_grade(state, grader), name)

        return score

    return one_check()
