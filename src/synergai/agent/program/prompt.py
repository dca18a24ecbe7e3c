"""LLM-TPC's prompts (Figs. S2-S8): task definition, format, API documentation, in-context example,
and the rectify / parse-error / summarization messages."""

from __future__ import annotations

from collections.abc import Sequence

from synergai.agent.answer_forms import AnswerForm

TASK = """\
You are a smart embodied agent. Use your coding and common sense reasoning skills to solve a question \
answering task with interleaving Thought, Action, Observation steps. Given your situation and question, \
use the following format to solve the task:
Thought: Answer the question by reasoning about scene and your situation. If you need further information \
about the objects in the scene (e.g. spatial relationship), generate a plan step by step and implement it \
in a program.
Action: The action to take, should be one of [Final Answer, Program].
Action Input:
(1) For Final Answer, return the answer to the question with NO MORE THAN 3 words.
(2) For Program, generate a Python program according to your thought to help you understand the scene."""

FORMAT = """\
Valid format for Final Answer
-----------------------------
Thought: Your reasoning for the final answer, in one short sentence.
Action: Final Answer
Action Input: Your final answer with NO MORE THAN 3 words. (Use your common sense reasoning skills to \
infer missing information and give a specific final answer.)

Valid format for Program
------------------------
Thought: Your plan for further information about the objects in the scene, in one short sentence.
Action: Program
Action Input:
```Python
YOUR PROGRAM (Use ```print(variable_value_you_want_to_know)``` to display the value of a variable.)
```"""

API_DOC = '''\
When generating a program, each object is represented as an instance of ObjectAttribute and you can use \
the following functions. Programs run in a sandbox: only math, itertools, collections and statistics can \
be imported; no classes, no attribute assignment (obj.x = ...), no open / eval / exec, no names starting \
with "_".
```Python
class ObjectAttribute:  # objects come from scene(), filter() and relate(); never build one yourself
    category: str # category of the object
    xyz: List[float] # center coordinates of the object
    id: str # the object's id
    # also query_attribute()'s types: obj.color, obj.lwh, ...

scene() -> Set[ObjectAttribute]:
    """Returns a set of objects in the scene. {set_order}"""

rooms() -> List[str]:
    """Returns the names of the scene's rooms (an empty list when the scene is one room).
    >>> print(rooms())
    ['kitchen', 'living room', 'bedroom']"""

room(name: str) -> Set[ObjectAttribute]:
    """Returns the set of objects in the room called `name` (one of rooms()).
    >>> for name in rooms():
    >>>     print(name, len(filter(object_set=room(name=name), category="chair")))
    kitchen 4"""

filter(object_set: Set[ObjectAttribute], category: str) -> Set[ObjectAttribute]:
    """Returns a set of objects whose category is `category` (a category of the scene, or a list of
    them: objects of any of them; or a predicate: the objects it is true of). Given a relation (and a
    reference_object), those of them so related, as relate_agent() says.
    >>> table_set = filter(object_set=scene(), category="table")"""

relate_agent(object_set: Set[ObjectAttribute], relation: str) -> Set:
    """Returns a set of objects that are related to the agent(you) by the relation:
    "left", "right", "front", "behind", "within reach", "around", "closest", "farthest",
    or a clock direction such as "7 o'clock" (the objects within an hour of it).
    Given a reference_object, it is relate().
    >>> table_left_set = relate_agent(object_set=table_set, relation="left")"""

relate(object_set: Set[ObjectAttribute], reference_object: ObjectAttribute, relation: str) -> Set:
    """Returns a set of objects that are related to the reference_object by the relation:
    "on", "under", "above", "below", "inside", "supporting", "near", "far", "next to", "hanging on",
    "left", "right", "front", "behind", "closest", "farthest".
    reference_object may be a set: then the objects related to any object of it.
    >>> objects_on_table = set()
    >>> for table in table_left_set:
    >>>     objects_on_table.update(relate(object_set=object_set, reference_object=table, relation="on"))
    >>> print(f"Objects on top of the table on my left: {[obj.category for obj in objects_on_table]}")
    Objects on top of the table on my left: ['book', 'tray']"""

query_relation_agent(object: ObjectAttribute, candidate_relations: Optional[List[str]]=["left", "right", \
"front", "back", "o'clock"]) -> List:
    """Returns a list of allocentric relations between the object and the agent(you).
    Given a reference_object, it is query_relation().
    >>> direction = query_relation_agent(object=table)
    >>> print(direction)
    ['left', 'back', "8 o'clock"]"""

query_relation(object: ObjectAttribute, reference_object: ObjectAttribute, candidate_relations: \
Optional[List[str]]=["left", "right", "front", "back"]) -> List:
    """Returns a list of allocentric relations between the object and the reference_object, as seen by you.
    Candidates may also be relations of relate(), e.g. "on".
    >>> relation = query_relation(object=chair, reference_object=table, candidate_relations=["left", "right"])
    >>> print(relation)
    ['left']"""

query_attribute(object: ObjectAttribute, attribute_type: str, candidate_attribute_values: \
Optional[List[str]]) -> Union[List[float], float, str]:
    """Returns the attribute of the object. `attribute_type` must be chosen from the following list:
    ["lwh", "distance", "color", "shape", "material"] (or a field: "category", "xyz", "id").
    >>> lwh = query_attribute(object=obj, attribute_type="lwh") # length, width, height in meters
    >>> distance = query_attribute(object=obj, attribute_type="distance") # meters from you
    >>> color = query_attribute(obj, "color", candidate_attribute_values=["brown", "black"])
    >>> print(color)
    brown"""

query_state(object: ObjectAttribute, candidate_states: List[str]) -> str:
    """Returns the state of the object.
    >>> state = query_state(object=obj, candidate_states=["neat", "messy"])"""
```'''

EXAMPLE = """\
Example:
user:
I am in a room. Looking around me, I see some objects: 2 chair, 1 coffee table, 1 couch, 2 lamp.
My situation: I am facing a chair, while having a couch on my right and a coffee table behind me.
Question: What is behind me directly?

assistant:
Thought: I need the objects behind me, sorted by distance.
Action: Program
Action Input:
```Python
object_set = scene()
behind = list(relate_agent(object_set=object_set, relation="behind"))
behind.sort(key=lambda x: query_attribute(x, "distance"))
print(f"Objects directly behind me: {[obj.category for obj in behind][:3]}")
```

user:
Observation: Objects directly behind me: ['coffee table', 'couch', 'lamp']

assistant:
Thought: The coffee table is the closest object behind me.
Action: Final Answer
Action Input: coffee table

Example: a question that names objects takes them with filter() first.
user:
Question: How many chairs are on my left?

assistant:
Thought: I need the chairs, then those on my left.
Action: Program
Action Input:
```Python
chairs = filter(object_set=scene(), category="chair")
chairs_left = relate_agent(object_set=chairs, relation="left")
print(f"Chairs on my left: {len(chairs_left)}")
```

user:
Observation: Chairs on my left: 2

assistant:
Thought: Two chairs are on my left.
Action: Final Answer
Action Input: 2"""

_MODIFIED_PROGRAM = """\
Thought: ...
Action: Program
Action Input:
```Python
YOUR MODIFIED PROGRAM
```"""

_RETURN_MODIFIED = " Return your modified program in the format of:\n" + _MODIFIED_PROGRAM
RECTIFY = "Program executing error. Check your program. {error}" + _RETURN_MODIFIED
CHECK_FAILED = "Program check error: the program was not run. {error}" + _RETURN_MODIFIED

EMPTY_OUTPUT = "the program printed nothing: print the values you want to know."

PROGRAM_FIRST = ("Answer from the scene, not from a guess: write a program that prints what the question "
                 "needs in the format of:\n" + _MODIFIED_PROGRAM.replace(" MODIFIED", ""))

CUT_OFF = ("your program was cut off after {tokens} tokens, so it does not parse: write a shorter one (a few "
           "lines, no comments, print only what the question needs).")

CUT_THOUGHT = ("Your first reply for this question was cut off after {tokens} tokens before its Action: "
               "keep the Thought to one short sentence, then write the Action.")

REPEATED = ("Your first program for this question failed with: {error} Write a different program that "
            "avoids this error, or give your Final Answer.")

PARSE_ERROR = f"""\
Response parsing error. Check your response and return your response in the format of:
Thought: ...
Action: The action to take, should be one of [Final Answer, Program].
Action Input: ...

{FORMAT}"""

#: How object sets behave, in the documentation the model reads.
ORDERED_SETS = ("Every set of objects the functions return is ordered by distance from you, nearest first: "
                "set[0] and next(iter(set)) are the nearest object, set[-1] the farthest; check len(set) > 0 "
                "first; set.sort(key=...) orders it as a list sorts; where one object is expected, a set "
                "stands for its nearest. Sets you build yourself (set(), {...}) have no order.")
STRICT_SETS = ("A set cannot be indexed. The sets the functions return iterate nearest to you first, so "
               "next(iter(set)) is the nearest object; sets you build yourself (set(), {...}) have no order.")

#: Appended to a program's output: the next reply is the answer (``ProgramLimits.answer_after_output``).
ANSWER_NOW = "Give your Final Answer now."

SUMMARIZE_JSON = ("You have reached the maximum number of chats. From the observations above, give your "
                  "final answer as JSON: {\"thought\": \"...\", \"answer\": ...}.")

_FORM_HINTS = {AnswerForm.YES_NO: "yes or no", AnswerForm.NUMBER: "a number", AnswerForm.COLOR: "a colour",
               AnswerForm.CATEGORY: "an object category of the scene", AnswerForm.PHRASE: "one or two words",
               AnswerForm.PLACE: "a place (a relation and an object, e.g. on the desk)",
               AnswerForm.DIRECTION: "a direction: left, right, front or back"}


def system_prompt(ordered_sets: bool = True) -> str:
    """The scene-independent system prompt (a stable cache prefix)."""
    api = API_DOC.replace("{set_order}", ORDERED_SETS if ordered_sets else STRICT_SETS)
    return f"{TASK}\n\n{FORMAT}\n\n{api}\n\n{EXAMPLE}"


def answer_hint(form: AnswerForm, options: Sequence[str] = ()) -> str:
    """"Answer with: ..." for the question's answer form."""
    if form is AnswerForm.CHOICE and options:
        return "one of: " + ", ".join(options)
    return _FORM_HINTS.get(form, _FORM_HINTS[AnswerForm.PHRASE])


def user_prompt(scene_summary: str, situation: str, question: str, answer: str = "") -> str:
    """The per-question message: the scene summary as in the paper, the question and the answer's form."""
    situation_line = f"My situation: {situation}\n" if situation.strip() else ""
    answer_line = f"\nAnswer with: {answer}." if answer else ""
    return f"I am in a room. Looking around me, I see some objects: {scene_summary}.\n{situation_line}" \
           f"Question: {question}{answer_line}"
