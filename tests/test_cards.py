import pytest

from companion.cards import FULL_DECK, Card, CardParseError, Rank, Suit, parse_cards


@pytest.mark.parametrize("text", ["7H", "7h", "7♥", "7♡", "seven of hearts", "Seven of Heart", " 7H "])
def test_seven_of_hearts_forms(text):
    assert Card.parse(text) == Card(Rank.SEVEN, Suit.HEARTS)


@pytest.mark.parametrize("text", ["10H", "TH", "th", "10♥", "ten of hearts", "10 of hearts"])
def test_ten_forms(text):
    assert Card.parse(text) == Card(Rank.TEN, Suit.HEARTS)


def test_round_trips():
    for card in FULL_DECK:
        assert Card.parse(str(card)) == card
        assert Card.parse(card.label) == card
        assert Card.parse(card.name) == card
        assert Card.from_index(card.index) == card
    assert len(set(FULL_DECK)) == 52


def test_home_piles():
    assert [Rank.parse(r).home_pile for r in "A23456789TJQK"] == list(range(1, 14))
    assert Card.parse("KD").home_pile == 13 and Card.parse("KD").is_king
    assert Card.parse("AC").home_pile == 1


@pytest.mark.parametrize("bad", ["", "7", "1X", "ZH", "11H", "0S", "seven of cups", "7HH"])
def test_bad_cards(bad):
    with pytest.raises(CardParseError):
        Card.parse(bad)


def test_parse_cards_and_labels():
    assert parse_cards("7H TC,10s") == [Card.parse("7H"), Card.parse("TC"), Card.parse("TS")]
    assert Card.parse("TH").label == "10♥" and Rank.TEN.label == "10"
    assert Suit.HEARTS.is_red and not Suit.SPADES.is_red
