// Tile view, for teaching: the output tensor (and a chosen input) as a 2-D grid cut into the
// schedule's tiles; a slider and a play button step through the outer loops, highlighting the
// tile being computed and the input regions resident in each memory level at that moment.
#pragma once

#include "snapshot.h"

#include <QWidget>

#include <memory>

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QSlider;
class QTimer;
class QToolButton;
QT_END_NAMESPACE

namespace loopscope::ui {

class TileCanvas;
struct TileModel;

class TileView : public QWidget {
    Q_OBJECT
public:
    explicit TileView(QWidget* parent = nullptr);
    void setSnapshot(const Snapshot& snapshot);
    /// Current position of the slider (0-based iteration of the outer tile loops).
    int position() const;
    void setPosition(int position);
    int positionCount() const;

    /// The tensor whose resident regions are shown (an input or intermediate of the kernel).
    QString inputTensor() const;
    void setInputTensor(const QString& tensor);
    /// Tensors that can be chosen as the input.
    QStringList inputTensors() const;
    /// Why nothing is drawn ("" when the tiles are shown).
    QString message() const;
    /// The outer loops that step through the tiles, outermost first.
    QStringList outerLoops() const;
    /// The region of the output written at the current position, e.g. "C[16:32, 0:16]".
    QString tileText() const;
    /// The regions of the input resident at the current position, one line per buffer.
    QStringList residentText() const;
    /// On a tensorized nest, what the accelerator's blocks at the current position are and how
    /// much of the PE array they use (the caption under the output); "" otherwise.
    QString arrayText() const;
    bool isPlaying() const;
    /// Starts or stops stepping through the positions (one step per interval).
    void setPlaying(bool playing);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    /// The slider moved (by the user, the play timer or setPosition).
    void positionChanged(int position);

private:
    friend class TileCanvas;
    void rebuildInput();
    void syncControls();
    void advance();

    Snapshot m_snapshot;
    std::shared_ptr<TileModel> m_model;
    int m_position = 0;
    QString m_input;
    TileCanvas* m_canvas = nullptr;
    QToolButton* m_play = nullptr;
    QSlider* m_slider = nullptr;
    QLabel* m_positionLabel = nullptr;
    QComboBox* m_inputBox = nullptr;
    QTimer* m_timer = nullptr;
};

} // namespace loopscope::ui
